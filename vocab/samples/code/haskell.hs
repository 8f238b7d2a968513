-- Word frequency counter: reads text on stdin, prints the ten most common words.
module Main (main) where

import Data.Char (isAlpha, toLower)
import Data.List (sortBy)
import qualified Data.Map.Strict as Map
import Data.Ord (comparing, Down (..))
import Text.Printf (printf)

countWords :: String -> Map.Map String Int
countWords = Map.fromListWith (+) . map (\w -> (w, 1)) . words . map normalize
  where
    normalize c = if isAlpha c then toLower c else ' '

main :: IO ()
main = do
  text <- getContents
  let ranked = sortBy (comparing (\(w, c) -> (Down c, w))) (Map.toList (countWords text))
  mapM_ (\(w, c) -> printf "%7d %s\n" c w) (take 10 ranked)
