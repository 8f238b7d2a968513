// A corpus for `tok compare`: named samples of text, all of the same content
// (a parallel text in several languages, one program in several languages,
// the same records in several formats). Two shapes on disk:
//   a directory   one sample per regular file directly inside, named by the
//                 file's stem (de.txt -> "de"); dot files and README*/LICENSE*
//                 are skipped, subdirectories are not entered
//   a TSV file    a header row of sample names (language codes), then one row
//                 per aligned segment; a sample's text is its column's cells
//                 joined by newlines
#pragma once

#include <string>
#include <vector>

#include "core/mapped_file.hpp"
#include "core/result.hpp"

namespace tok::compare {

struct Sample {
  std::string name;    // file stem or TSV column header
  std::string origin;  // file path, or "FILE.tsv column N"
  MappedFile text;
};

struct Corpus {
  std::string name;             // the path as given
  std::vector<Sample> samples;  // sorted by name
};

// Loads a directory or a parallel TSV; errors name the path (and line).
Result<Corpus> load_corpus(const std::string& path);

// Splits a parallel TSV's bytes into per-column texts; `path` is for errors.
Result<std::vector<Sample>> parse_parallel_tsv(std::string_view bytes, const std::string& path);

}  // namespace tok::compare
