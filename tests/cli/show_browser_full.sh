# tok show --html in a real browser (headless Chromium): the page loads with
# its script run and no console errors, shows one token span per token, and
# renders to a screenshot. Set TOK_SHOW_SCREENSHOT=FILE to keep the picture.
source "$(dirname "$0")/lib.sh"
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || fail "chromium is not installed (scripts/test --full installs it)"

printf 'Tokens <b>&</b> "quotes"\tand tabs\ncaf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 \xff x\xe2\x80\x8dy\n    def f(x): return x * 2\n' >"$T/in.txt"
"$TOK" show --html "$T/one.html" "$T/in.txt" || fail "tok show --html failed"
"$TOK" show --html "$T/two.html" -m gpt-oss-20b -e o200k_base -e r50k_base "$T/in.txt" \
  || fail "tok show --html (two) failed"

browse() {  # browse PAGE ARGS...: runs headless Chromium on PAGE, stderr to $T/log
  local page=$1; shift
  rm -rf "$T/profile"
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@" "file://$page" 2>"$T/log"
}

for page in one two; do
  browse "$T/$page.html" --dump-dom >"$T/$page.dom" || fail "chromium failed on $page.html: $(tail -5 "$T/log")"
  grep -qiE 'Uncaught|Refused to|CONSOLE.*(error|Error)' "$T/log" \
    && fail "console errors on $page.html: $(grep -iE 'Uncaught|Refused|CONSOLE' "$T/log" | head -5)"
  grep -q 'data-ready="1"' "$T/$page.dom" || fail "the page's script did not run ($page.html)"
  spans=$(grep -o 'class="tok c[0-9][^"]*"' "$T/$page.dom" | wc -l)
  counted=$(grep -o 'data-token-spans="[0-9]*"' "$T/$page.dom" | grep -o '[0-9]*')
  expect_eq "script saw all token spans ($page)" "$spans" "$counted"
  if [ $page = one ]; then want=$("$TOK" count -q "$T/in.txt"); else
    want=$(( $("$TOK" count -q "$T/in.txt") + $("$TOK" count -q -e r50k_base "$T/in.txt") )); fi
  expect_eq "token spans in the DOM ($page)" "$want" "$spans"
  grep -q '<b>' "$T/$page.dom" && fail "input markup became DOM elements ($page)"
done

# Hover: a copy of the page with a script that moves the pointer over the
# second token; the info bar must then name it, and tokens with its id get
# outlined.
sed 's|</body>|<script>document.querySelectorAll("span.tok")[1].dispatchEvent(new MouseEvent("mouseover",{bubbles:true}));</script></body>|' \
  "$T/one.html" >"$T/hover.html"
browse "$T/hover.html" --dump-dom >"$T/hover.dom" || fail "chromium failed on hover.html"
grep -q '<div id="info">o200k_base token 1 · id [0-9]* · bytes [0-9a-f ]* · offset [0-9]*</div>' "$T/hover.dom" \
  || fail "hover did not fill the info bar: $(grep -o '<div id="info">[^<]*' "$T/hover.dom")"
grep -q 'class="tok c1 same"' "$T/hover.dom" || fail "hovered token not outlined"

shot=${TOK_SHOW_SCREENSHOT:-$T/shot.png}
browse "$T/two.html" --screenshot="$shot" --window-size=1200,900 >/dev/null \
  || fail "screenshot failed: $(tail -5 "$T/log")"
[ -s "$shot" ] || fail "no screenshot written"
[ "$(head -c 4 "$shot" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "screenshot is not a PNG"
echo "show_browser_full: ok ($shot)"
