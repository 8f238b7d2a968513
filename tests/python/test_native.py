"""The native API (import tok) and the parts of tok.tiktoken that tiktoken's
public suite does not reach. Run by tests/cli/python_native_full.sh."""

import gc
import json
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tok
import tok.tiktoken as tiktoken

ROOT = os.environ["TOK_ROOT"]
VOCAB = os.path.join(ROOT, "vocab")
SAMPLES = os.path.join(VOCAB, "samples")


def test_load_builtin_encodes_as_tiktoken_does():
    t = tok.load("o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    text = open(os.path.join(SAMPLES, "en.txt"), encoding="utf-8").read()
    assert t.encode(text) == enc.encode_ordinary(text)
    assert t.count(text) == len(t.encode(text))
    assert t.count(text, threads=4) == t.count(text)
    assert t.decode(t.encode(text)) == text


def test_load_tokenizer_json_and_directory():
    path = os.path.join(VOCAB, "qwen3", "tokenizer.json")
    t = tok.load(path)
    assert t.vocab_size > 150000
    ids = t.encode("hello world")
    assert t.decode(ids) == "hello world"
    assert tok.load(os.path.join(VOCAB, "qwen3")).encode("hello world") == ids


def test_load_gguf():
    t = tok.load(os.path.join(VOCAB, "tok-tiny-bible.gguf"))
    assert t.decode(t.encode("In the beginning")) == "In the beginning"


def test_load_error_is_value_error_naming_the_file():
    with pytest.raises(ValueError, match="nope.tiktoken"):
        tok.load("/nonexistent/nope.tiktoken")
    with pytest.raises(ValueError, match="o200k"):
        tok.load("o200k_bsae")


def test_special_modes():
    t = tok.load("cl100k_base")
    text = "a<|endoftext|>b"
    assert 100257 in t.encode(text, special="allow")
    assert 100257 not in t.encode(text)
    with pytest.raises(ValueError, match="endoftext"):
        t.encode(text, special="error")
    with pytest.raises(ValueError, match="special must be"):
        t.encode(text, special="bogus")


def test_errors_name_the_python_argument_not_the_cli_flag(tmp_path):
    t = tok.load("cl100k_base")
    for call in (lambda: t.encode("a<|endoftext|>b", special="error"),
                 lambda: t.count("a<|endoftext|>b", special="error"),
                 lambda: t.encode_batch(["x", "a<|endoftext|>b"], special="error")):
        with pytest.raises(ValueError) as e:
            call()
        assert 'pass special="allow"' in str(e.value) and 'special="text"' in str(e.value)
        assert "--special" not in str(e.value)
    odd = tmp_path / "odd.tiktoken"
    # A modified copy (its last token dropped): no built-in checksum, no sidecar.
    lines = open(os.path.join(VOCAB, "r50k_base.tiktoken"), "rb").read().splitlines(keepends=True)
    odd.write_bytes(b"".join(lines[:-1]))
    with pytest.raises(ValueError) as e:
        tok.load(str(odd))
    assert "pattern=" in str(e.value) and "--pattern" not in str(e.value)
    assert tok.load(str(odd), pattern="gpt2").encode("hello world") == [31373, 995]


def test_version_is_the_cli_version():
    cli = subprocess.run([os.environ["TOK"], "--version"], capture_output=True, text=True, check=True)
    # The first line; the second names the Unicode version tok's tables hold.
    assert cli.stdout.splitlines()[0].split() == ["tok", tok.__version__]


def test_load_tiktoken_bpe_does_not_fetch_urls():
    from tok.tiktoken.load import load_tiktoken_bpe
    with pytest.raises(ValueError, match="URLs are not fetched"):
        load_tiktoken_bpe("https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken")
    ranks = load_tiktoken_bpe(os.path.join(VOCAB, "r50k_base.tiktoken"))
    assert ranks[b"hello"] == 31373


def test_offsets_are_the_input_bytes_each_token_covers():
    t = tok.load("cl100k_base")
    text = "héllo wörld <|endoftext|> 日本語"
    spans = t.offsets(text, special="allow")
    assert [i for i, _, _ in spans] == t.encode(text, special="allow")
    raw = text.encode("utf-8")
    at = 0
    for i, begin, end in spans:
        assert begin == at
        assert raw[begin:end] == t.token_bytes(i)
        at = end
    assert at == len(raw)


def test_offsets_tile_the_input_when_tokens_are_not_its_bytes():
    # mistral's SentencePiece vocabulary adds a prefix space (U+2581) that
    # takes no input bytes: spans still tile the input, as the CLI's.
    t = tok.load(os.path.join(VOCAB, "mistral"))
    text = "The cat sat"
    spans = t.offsets(text)
    assert [i for i, _, _ in spans] == t.encode(text)
    assert spans[0][1] == 0 and spans[-1][2] == len(text.encode())
    for (_, _, end), (_, begin, _) in zip(spans, spans[1:]):
        assert end == begin
    # The same spans as the CLI's (tests/cli/python_native_full.sh passes TOK).
    cli = subprocess.run([os.environ["TOK"], "encode", "--tokens", "-e",
                          os.path.join(VOCAB, "mistral"), "-t", text],
                         capture_output=True, text=True, check=True)
    assert [int(line.split("\t")[1]) for line in cli.stdout.splitlines()] == \
        [b for _, b, _ in spans]


def test_encode_to_numpy_is_uint32_without_copying_through_a_list():
    t = tok.load("o200k_base")
    arr = t.encode_to_numpy("hello world, hello numpy")
    assert arr.dtype == np.uint32
    assert arr.tolist() == t.encode("hello world, hello numpy")
    enc = tiktoken.get_encoding("o200k_base")
    assert enc.encode_to_numpy("hi there").tolist() == enc.encode("hi there")
    assert enc.decode(enc.encode_to_numpy("hi there")) == "hi there"


def test_batches_match_single_calls_for_any_thread_count():
    t = tok.load("o200k_base")
    texts = [open(os.path.join(SAMPLES, f), encoding="utf-8").read()
             for f in sorted(os.listdir(SAMPLES)) if f.endswith(".txt")]
    single = [t.encode(x) for x in texts]
    for threads in (1, 2, 5):
        assert t.encode_batch(texts, threads=threads) == single
        assert t.count_batch(texts, threads=threads) == [len(s) for s in single]
    enc = tiktoken.get_encoding("o200k_base")
    assert enc.encode_ordinary_batch(texts, num_threads=3) == single


def test_batches_read_every_kind_of_str_as_its_utf8():
    # CPython stores a str in 1, 2 or 4 bytes per character; the batch reads
    # each form itself, without the GIL, and must see the same UTF-8.
    class Sub(str):
        pass

    texts = ["plain ascii", "caf\u00e9 na\u00efve \u00ff", "\u4e2d\u6587 \u0416 \u20ac",
             "emoji \U0001F600 and \U00010348", "", Sub("a str subclass \u00e9"),
             "mixed \u00e9\u4e2d\U0001F600" * 1000]
    t = tok.load("o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    single = [t.encode(x) for x in texts]
    for threads in (1, 2, 3):
        assert t.encode_batch(texts, threads=threads) == single
        assert t.encode_batch([x.encode("utf-8") for x in texts], threads=threads) == single
        assert t.count_batch(texts, threads=threads) == [len(s) for s in single]
        assert enc.encode_ordinary_batch(texts, num_threads=threads) == single
        assert enc.encode_batch(tuple(texts), num_threads=threads) == single


def test_every_kind_of_str_is_read_as_pythons_own_utf8():
    # The batch and long calls transcode a str themselves, ASCII runs 16 code
    # units at a time: runs of every length around that, broken by characters
    # of each UTF-8 length, in each width of str, must read as Python's UTF-8.
    import random
    rnd = random.Random(11)
    breaks = ["\x7f", "\x80", "\u00e9", "\u00ff", "\u0416", "\u07ff", "\u0800", "\u4e2d",
              "\uffff", "\U00010000", "\U0001F600", "\U0010FFFF"]
    texts = []
    for _ in range(2000):
        wide = rnd.choice(["", "\u0100", "\U00010000"])  # 1, 2 or 4 bytes a character
        parts = [wide]
        for _ in range(rnd.randrange(1, 12)):
            parts.append("".join(chr(rnd.randrange(0, 128)) for _ in range(rnd.randrange(0, 50))))
            parts.append(rnd.choice(breaks) * rnd.randrange(1, 4))
        texts.append("".join(parts))
    texts.append(("x" * 40 + "\u00e9") * 60_000)  # read in parts (2 MiB and more)
    t = tok.load("o200k_base")
    want = t.encode_batch([x.encode("utf-8") for x in texts], threads=1)
    assert t.encode_batch(texts, threads=1) == want
    assert t.encode(texts[-1]) == want[-1]
    # A lone surrogate right after a run is still found, in each width.
    for wide in ("", "\U00010000"):
        with pytest.raises(UnicodeEncodeError):
            t.encode_batch([wide + "a" * 37 + "\ud800" + "b" * 20], threads=1)


def test_a_batch_leaves_the_garbage_collector_as_it_found_it():
    # The calling thread holds collections off while it builds the lists.
    enc = tiktoken.get_encoding("o200k_base")
    texts = ["hello world, caf\u00e9"] * 5000
    want = [enc.encode_ordinary(x) for x in texts]
    assert gc.isenabled()
    assert enc.encode_ordinary_batch(texts, num_threads=2) == want
    assert gc.isenabled()
    gc.disable()
    try:
        assert enc.encode_batch(texts, num_threads=2) == want
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_batch_raises_for_its_first_failing_text_as_tiktoken_does():
    enc = tiktoken.get_encoding("cl100k_base")
    texts = ["fine"] * 100 + ["a <|fim_prefix|>"] + ["fine"] * 100 + ["<|endoftext|>"]
    for threads in (1, 2, 4):
        with pytest.raises(ValueError, match="fim_prefix"):
            enc.encode_batch(texts, num_threads=threads)
    # Lone surrogates: tiktoken's replacement, text by text.
    texts = ["ok", "a\ud800b", "\udfff" * 3]
    assert enc.encode_ordinary_batch(texts) == [enc.encode_ordinary(x) for x in texts]
    t = tok.load("cl100k_base")
    with pytest.raises(UnicodeEncodeError):
        t.encode_batch(texts, threads=2)
    with pytest.raises(TypeError, match="expected str"):
        t.encode_batch(["a", 3])


def test_an_exception_on_a_batch_worker_is_raised_as_the_single_call_raises_it(tmp_path):
    # A piece longer than the encoder takes (16 MiB of one letter) throws on
    # the thread that encodes it. With as many copies as threads, the calling
    # thread stops after its first, so the other workers throw too. Run in a
    # child process: an exception escaping a worker thread would abort the
    # interpreter, and the pytest run with it.
    code = r"""
import sys, tok, tok.tiktoken as tiktoken
big = "a" * ((16 << 20) + 1)
files = []
for i in range(4):
    files.append(f"{sys.argv[1]}/run{i}.txt")
    open(files[-1], "w").write(big)
t = tok.load("o200k_base")
enc = tiktoken.get_encoding("o200k_base")
def error(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__, str(e)
for name, one, batch in [
        ("encode_batch", lambda: t.encode(big), lambda: t.encode_batch([big] * 4, threads=4)),
        ("count_batch", lambda: t.count(big), lambda: t.count_batch([big] * 4, threads=4)),
        ("tiktoken encode_batch", lambda: enc.encode(big),
         lambda: enc.encode_batch([big] * 4, num_threads=4)),
        ("tiktoken encode_ordinary_batch", lambda: enc.encode_ordinary(big),
         lambda: enc.encode_ordinary_batch([big] * 4, num_threads=4)),
        ("count_files", lambda: tok.count_files(files[:1], threads=1),
         lambda: tok.count_files(files, threads=4))]:
    want = error(one)
    assert want is not None and "no pre-tokenizer boundary" in want[1], (name, want)
    got = error(batch)
    assert got == want, (name, got, want)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                       timeout=300)
    assert (r.returncode, r.stdout.strip()) == (0, "ok"), r.stderr[-2000:]


def test_python_threads_run_in_parallel_and_agree():
    t = tok.load("cl100k_base")
    text = open(os.path.join(SAMPLES, "de.txt"), encoding="utf-8").read() * 4
    want = t.count(text)
    got = []
    threads = [threading.Thread(target=lambda: got.append(t.count(text))) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert got == [want] * 4


def _other_thread_progress(call, deadline_s=60.0):
    """How many loop iterations a second Python thread makes while call()
    runs, call repeated until some are seen or the deadline passes.

    The switch interval is set far past the test's length, so the interpreter
    never takes the GIL from a thread: the loop thread runs only while this
    one has released it. Each iteration sleeps (releasing the GIL) so this
    thread gets it back at once when call() returns."""
    state = {"n": 0, "stop": False}
    started = threading.Event()

    def loop():
        started.set()
        while not state["stop"]:
            state["n"] += 1
            time.sleep(1e-4)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    th = threading.Thread(target=loop)
    try:
        th.start()
        started.wait()
        deadline = time.monotonic() + deadline_s
        while True:
            before = state["n"]
            call()
            seen = state["n"] - before
            if seen or time.monotonic() > deadline:
                return seen
    finally:
        state["stop"] = True
        th.join()
        sys.setswitchinterval(old)


def _gil_calls(tmp_path):
    text = "".join(open(os.path.join(SAMPLES, f), encoding="utf-8").read()
                   for f in sorted(os.listdir(SAMPLES)) if f.endswith(".txt"))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    t = tok.load("o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    ids = enc.encode_ordinary(text)
    raw = text.encode("utf-8") + b"\xff"
    long_text = text * (3_000_000 // len(text) + 1)
    ranks = tiktoken.get_encoding("gpt2")._mergeable_ranks
    return {
        "tiktoken encode_ordinary": lambda: enc.encode_ordinary(text),
        "tiktoken encode": lambda: enc.encode(text),
        # Read in parts (chunked_encode.hpp): the GIL is released for each.
        "tiktoken encode_ordinary, long": lambda: enc.encode_ordinary(long_text),
        "tiktoken encode, long": lambda: enc.encode(long_text),
        "tiktoken encode_to_numpy": lambda: enc.encode_to_numpy(text),
        "tiktoken encode_batch": lambda: enc.encode_batch([text, text], num_threads=1),
        "tiktoken encode_ordinary_batch":
            lambda: enc.encode_ordinary_batch([text, text], num_threads=1),
        "tiktoken encode_with_unstable": lambda: enc.encode_with_unstable(text + " hel"),
        "tiktoken _encode_bytes": lambda: enc._encode_bytes(raw),
        "tiktoken _encode_single_piece": lambda: enc._encode_single_piece("ab" * 100000),
        "tiktoken decode": lambda: enc.decode(ids),
        "tiktoken token_byte_values": enc.token_byte_values,
        "tiktoken Encoding()": lambda: tiktoken.Encoding(
            "mine", pat_str=enc._pat_str, mergeable_ranks=ranks, special_tokens={}),
        "tiktoken CoreBPE.from_spec": lambda: tok._tok.CoreBPE.from_spec("o200k_base", "x"),
        "load": lambda: tok.load("cl100k_base"),
        "encode": lambda: t.encode(text),
        "encode_to_numpy": lambda: t.encode_to_numpy(text),
        "count": lambda: t.count(text),
        "offsets": lambda: t.offsets(text),
        "decode": lambda: t.decode(ids),
        "encode_batch": lambda: t.encode_batch([text, text], threads=1),
        "count_batch": lambda: t.count_batch([text, text], threads=1),
        "count_files": lambda: tok.count_files([str(corpus)], threads=1),
        "train": lambda: tok.train([str(corpus)], vocab_size=300, threads=1),
    }


def test_every_long_native_call_lets_other_python_threads_run(tmp_path):
    # Calls that hold the GIL throughout let the other thread make no
    # progress at all; every one here must let it run.
    held = [name for name, call in _gil_calls(tmp_path).items()
            if _other_thread_progress(call, deadline_s=20.0) == 0]
    assert held == []


def test_the_gil_probe_sees_a_call_that_holds_the_gil():
    # The probe itself: a pure-Python loop never releases the GIL.
    def busy():
        x = 0
        for i in range(200000):
            x += i
    assert _other_thread_progress(busy, deadline_s=0.5) == 0


def test_count_files_matches_the_cli_rows(tmp_path):
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "b.txt").write_text("more text here\n" * 10)
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    r = tok.count_files([str(tmp_path)], models=["gpt-4o"])
    (m,) = r["models"]
    assert m["model"] == "gpt-4o" and m["encoding"] == "o200k_base"
    assert [f["path"].rsplit("/", 1)[1] for f in m["files"]] == ["a.txt", "b.txt"]
    t = tok.load("o200k_base")
    assert m["files"][0]["tokens"] == t.count("hello world\n")
    assert m["total"]["tokens"] == sum(f["tokens"] for f in m["files"])
    assert m["total"]["input_cost"] > 0
    assert r["skipped"][0].endswith("bin.dat")
    plain = tok.count_files([str(tmp_path / "a.txt")], encoding="cl100k_base")
    assert plain["encoding"] == "cl100k_base" and plain["total"]["tokens"] == 3


def test_count_files_walks_as_the_cli_and_bills_file_by_file(tmp_path):
    # A root .gitignore applies to a subdirectory counted on its own.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("node_modules\n*.log\n")
    sub = tmp_path / "sub"
    (sub / "node_modules").mkdir(parents=True)
    (sub / "node_modules" / "i.js").write_text("ignored\n")
    (sub / "b.log").write_text("ignored\n")
    (sub / "a.txt").write_text("hello world\n")
    (sub / "big.txt").write_text("hello world " * 2000)
    r = tok.count_files([str(sub)], models=["gpt-4o"])
    (m,) = r["models"]
    assert [f["path"].rsplit("/", 1)[1] for f in m["files"]] == ["a.txt", "big.txt"]
    cli = subprocess.run([os.environ["TOK"], "count", "--json", "-m", "gpt-4o", str(sub)],
                         check=True, capture_output=True, text=True).stdout
    want = json.loads(cli)["models"][0]
    assert [f["tokens"] for f in m["files"]] == [f["tokens"] for f in want["files"]]
    # The total is the sum of the files' requests, as `tok count` bills it.
    assert m["total"]["input_cost"] == pytest.approx(want["total"]["input_cost"], rel=1e-12)
    assert m["total"]["input_cost"] == pytest.approx(sum(f["input_cost"] for f in m["files"]))


def cli_count_json(*args):
    out = subprocess.run([os.environ["TOK"], "count", "--json", *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def test_count_files_returns_the_cli_json_key_by_key(tmp_path):
    # One function (cost::count_json) builds both: every key, prices with
    # their tiers and batch factor, each file's tier, the total's rates.
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "b.md").write_text("# Title\n\nSome *markdown* text.\n" * 20)
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    # Over gpt-5.4's tier above 271,999 tokens: that file is billed at the long-context rates.
    (tmp_path / "long.txt").write_text("word " * 300000)
    models = ["gpt-5.4", "claude-sonnet-4-5", "gpt-4o"]
    got = tok.count_files([str(tmp_path)], models=models)
    want = cli_count_json(*[a for m in models for a in ("-m", m)], str(tmp_path))
    assert list(got) == list(want) == ["models", "skipped"]
    for g, w in zip(got["models"], want["models"]):
        assert list(g) == list(w)
        for key in w:
            assert g[key] == w[key], (w["model"], key)
    tiers = [f["tier"] for f in got["models"][0]["files"]]
    assert tiers == ["standard", "standard", "over 271999"], tiers
    assert got["models"][0]["price"]["tiers"] and got["models"][0]["price"]["batch_factor"] == 0.5
    assert got["models"][0]["total"]["rates"]["requests_above_base"] == 1
    assert got == want
    # Without a model: the legacy {"encoding", "files", "total"} form.
    plain = tok.count_files([str(tmp_path / "a.txt")], encoding="cl100k_base")
    assert plain == cli_count_json("-e", "cl100k_base", str(tmp_path / "a.txt"))


def test_count_files_unknown_model():
    with pytest.raises(ValueError, match="unknown model"):
        tok.count_files(["x"], models=["no-such-model-xyz"])


def test_count_files_stops_on_an_endless_device_where_the_cli_does():
    # The CLI's stream counter, not a 1 GiB read: the same error, at once.
    cli = subprocess.run([os.environ["TOK"], "count", "/dev/zero"], capture_output=True, text=True)
    reason = cli.stderr.strip().removeprefix("tok: error: ")
    assert cli.returncode == 1 and reason.startswith("/dev/zero: no piece boundary")
    with pytest.raises(ValueError) as e:
        tok.count_files(["/dev/zero"])
    assert str(e.value) == reason


def test_train_writes_the_files_tok_train_writes(tmp_path):
    corpus = os.path.join(SAMPLES, "en.txt")
    for pattern in ("cl100k", r"\w+|\s+|[^\w\s]+"):
        py_out = tmp_path / "py.tiktoken"
        tok.train([corpus], vocab_size=420, output=str(py_out), pattern=pattern,
                  specials=["<|a|>", "<|b|>"], min_frequency=2, max_token_bytes=8)
        subprocess.run([os.environ["TOK"], "train", "-q", "--vocab-size", "420", "-o",
                        str(tmp_path / "cli"), "--pattern", pattern, "--special-token", "<|a|>",
                        "--special-token", "<|b|>", "--min-frequency", "2",
                        "--max-token-bytes", "8", corpus], check=True)
        assert py_out.read_bytes() == (tmp_path / "cli.tiktoken").read_bytes(), pattern
        assert (tmp_path / "py.tiktoken.json").read_bytes() == \
            (tmp_path / "cli.tiktoken.json").read_bytes(), pattern
    with pytest.raises(ValueError, match="vocab_size 257 is too small: .* 256 byte tokens "
                                         r"\+ 2 special tokens"):
        tok.train([corpus], vocab_size=257, specials=["<|a|>", "<|b|>"])


def test_train_refuses_an_output_that_is_an_input(tmp_path):
    corpus = tmp_path / "c.tiktoken"
    corpus.write_text("hello world " * 100)
    with pytest.raises(ValueError, match="c.tiktoken: is also an input; write to another file"):
        tok.train([str(corpus)], vocab_size=300, output=str(corpus))
    with pytest.raises(ValueError, match="c.tiktoken: is also an input"):
        tok.train([str(tmp_path)], vocab_size=300, output=str(corpus))
    assert corpus.read_text() == "hello world " * 100


def test_train_round_trips_and_writes_a_loadable_vocabulary(tmp_path):
    corpus = os.path.join(SAMPLES, "en.txt")
    out = str(tmp_path / "mine.tiktoken")
    t = tok.train([corpus], vocab_size=400, output=out, specials=["<|end|>"])
    assert t.vocab_size == 400  # as --vocab-size: the special token included
    text = open(corpus, encoding="utf-8").read()
    assert t.decode(t.encode(text)) == text
    again = tok.load(out)
    assert again.encode(text) == t.encode(text)
    assert again.encode("<|end|>", special="allow") == [399]
    with pytest.raises(ValueError, match="empty corpus"):
        empty = tmp_path / "empty.txt"
        empty.write_text("")
        tok.train([str(empty)], vocab_size=300)


def test_every_tiktoken_encoding_loads_offline():
    sizes = {"gpt2": 50257, "r50k_base": 50257, "p50k_base": 50281, "p50k_edit": 50284,
             "cl100k_base": 100277, "o200k_base": 200019, "o200k_harmony": 201088}
    assert set(tiktoken.list_encoding_names()) == set(sizes)
    for name, n in sizes.items():
        enc = tiktoken.get_encoding(name)
        assert enc.n_vocab == n, name
        assert enc.decode(enc.encode("hello world")) == "hello world"
    h = tiktoken.get_encoding("o200k_harmony")
    assert h.encode("<|start|>x<|end|>", allowed_special="all") == [200006, 87, 200007]


def test_custom_pattern_runs_on_the_regex_engine():
    base = tiktoken.get_encoding("cl100k_base")
    enc = tiktoken.Encoding("digits", pat_str=r"\d|[^\d]+", mergeable_ranks=base._mergeable_ranks,
                            special_tokens={})
    assert [base.decode([t]) for t in enc.encode("ab123")][:1] == ["ab"]
    assert len(enc.encode("123")) == 3


def test_allowed_subset_and_error_message():
    enc = tiktoken.get_encoding("cl100k_base")
    with pytest.raises(ValueError) as e:
        enc.encode("x <|fim_prefix|>")
    assert str(e.value).startswith(
        "Encountered text corresponding to disallowed special token '<|fim_prefix|>'.")
    assert enc.encode("<|endoftext|><|fim_prefix|>", allowed_special={"<|fim_prefix|>"},
                      disallowed_special=()) == enc.encode_ordinary("<|endoftext|>") + [100258]


def test_encode_with_unstable():
    enc = tiktoken.get_encoding("gpt2")
    stable, completions = enc.encode_with_unstable("hello fanta")
    assert stable == [31373]
    assert (enc.encode(" fanta") in completions)
    assert all(enc.decode(c).startswith(" fant") or " fanta".startswith(enc.decode(c))
               for c in completions)


def test_registered_encodings_pickle_by_name():
    enc = tiktoken.get_encoding("o200k_harmony")
    assert pickle.loads(pickle.dumps(enc)) is not None
    assert len(pickle.dumps(enc)) < 200


def test_custom_encoding_refuses_what_it_could_not_encode():
    base = tiktoken.get_encoding("r50k_base")
    ranks = {k: v for k, v in base._mergeable_ranks.items() if k != b"a"}
    with pytest.raises(ValueError, match="no token for byte 97"):
        tiktoken.Encoding("holes", pat_str=base._pat_str, mergeable_ranks=ranks, special_tokens={})
    with pytest.raises(ValueError, match="ordinary token's rank"):
        tiktoken.Encoding("clash", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                          special_tokens={"<|x|>": 5})
    with pytest.raises(ValueError, match="pat_str"):
        tiktoken.Encoding("badre", pat_str="(", mergeable_ranks=base._mergeable_ranks,
                          special_tokens={})


def _bytes_to_unicode():
    # GPT-2's byte-level alphabet: printable bytes stand for themselves, the
    # others map to code points from 256 up.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, n = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + n)
            n += 1
    return out


def test_load_vocab_json_with_merges_txt(tmp_path):

    alphabet = _bytes_to_unicode()
    vocab = {alphabet[b]: b for b in range(256)}
    vocab["he"] = 256
    vocab["hel"] = 257
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\nh e\nhe l\n")
    t = tok.load(str(tmp_path / "vocab.json"))
    assert t.encode("hello") == [257, ord("l"), ord("o")]
    assert t.decode([257, 108, 111]) == "hello"


def test_train_refuses_empty_and_repeated_specials_as_the_cli_does(tmp_path):
    import subprocess
    corpus = os.path.join(SAMPLES, "en.txt")
    for specials, suffix in (([""], ": a special token cannot be empty"),
                             (["<|a|>", "<|b|>", "<|a|>"], " <|a|>: given twice")):
        with pytest.raises(ValueError) as e:
            tok.train([corpus], vocab_size=300, output=str(tmp_path / "v.tiktoken"), specials=specials)
        assert str(e.value) == "specials" + suffix
        cli = subprocess.run([os.environ["TOK"], "train", "-q", "--vocab-size", "300", "-o", str(tmp_path / "c"),
                              *[x for s in specials for x in ("--special-token", s)], corpus], capture_output=True, text=True)
        assert (cli.returncode, cli.stderr) == (1, "tok: error: --special" + suffix + "\n")
    assert not os.path.exists(tmp_path / "v.tiktoken")


def test_encoding_refuses_a_huge_rank_before_allocating():
    import resource
    import time
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 100_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    with pytest.raises(ValueError) as e:
        tiktoken.Encoding("huge", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    assert str(e.value) == "rank 100000000 but mergeable_ranks has only 257 entries"
    assert time.monotonic() - t0 < 2
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KiB


def test_a_piece_over_the_limit_is_one_valueerror_naming_the_file(tmp_path):
    # One run of a letter one byte over bpe::kMaxPieceBytes (16 MiB): the
    # tokenizer returns the error (no exception crosses a worker thread, which
    # would end the interpreter) and count_files names the file.
    run = "a" * (16 * 1024 * 1024 + 1)
    path = tmp_path / "run.txt"
    path.write_text(run)
    (tmp_path / "ok.txt").write_text("hello world\n")
    want = "a piece of 16777217 bytes with no pre-tokenizer boundary"
    for paths in ([str(path)], [str(tmp_path)]):
        with pytest.raises(ValueError) as e:
            tok.count_files(paths, encoding="cl100k_base", threads=2)
        assert str(e.value).startswith(str(path) + ": " + want)
    t = tok.load("o200k_base")
    for call in (lambda: t.encode(run), lambda: t.count(run), lambda: t.count(run, threads=4),
                 lambda: t.encode_batch(["hi", run], threads=2)):
        with pytest.raises(ValueError, match=want):
            call()
    enc = tiktoken.get_encoding("o200k_base")
    for call in (lambda: enc.encode(run), lambda: enc.encode_ordinary(run),
                 lambda: enc.encode_batch(["hi", run], num_threads=2),
                 lambda: enc._encode_single_piece(run.encode())):
        with pytest.raises(ValueError, match=want):
            call()
    assert t.encode("hello") == enc.encode("hello")


def test_long_single_calls_read_in_parts_give_the_whole_texts_ids():
    # From 2 MiB on, encode_ordinary and encode read, encode and list a text a
    # part at a time, cut at guaranteed piece boundaries (chunked_encode.hpp);
    # the batch call encodes each text whole: the ids must agree for every
    # kind of str, bytes, runs with no boundary, and specials near the cuts.
    import random
    enc = tiktoken.get_encoding("cl100k_base")
    sample = "".join(open(os.path.join(SAMPLES, f), encoding="utf-8").read()
                     for f in sorted(os.listdir(SAMPLES)) if f.endswith(".txt"))
    rnd = random.Random(7)
    alphabet = ["a", "b", " ", "  ", "\n", "\t", ".", "1", "\u00e9", "\u4e2d", "\U0001F600",
                "\u0627", "<|endoftext|>", "<|endof", "'s", "\r\n"]
    texts = [
        "".join(rnd.choice(alphabet) for _ in range(700_000)),
        (sample * (3_000_000 // len(sample) + 1))[:3_000_000],
        ("ascii only words, " * 200_000),
        ("caf\u00e9 " * 600_000),
        ("\u4e2d\u6587" * 1_200_000),
        ("x" * 2_500_000) + " " + ("\U0001F600" * 10) + " " * 3_000_000 + "y",
    ]
    whole = enc.encode_ordinary_batch(texts, num_threads=1)
    for t, ids in zip(texts, whole):
        assert enc.encode_ordinary(t) == ids
        assert enc.encode_ordinary(t.encode("utf-8")) == ids
        assert enc.encode(t, disallowed_special=()) == ids
        assert enc.encode_to_numpy(t, disallowed_special=()).tolist() == ids
    t = texts[0]
    want = enc.encode_batch([t], allowed_special="all", num_threads=1)[0]
    assert enc.encode(t, allowed_special="all") == want
    assert enc.encode(t, allowed_special={"<|endoftext|>"}) == want
    # A refused special anywhere, first found as the whole-text check finds it.
    for at in (10, 1_048_000, 2_000_000, len(texts[2]) - 5):
        s = texts[2][:at] + "<|endofprompt|>" + texts[2][at:] + "<|endoftext|>"
        with pytest.raises(ValueError, match="<\\|endofprompt\\|>"):
            enc.encode(s)
        with pytest.raises(ValueError, match="<\\|endofprompt\\|>"):
            enc.encode_to_numpy(s)
    # A lone surrogate past the first part: tiktoken's retry, replaced.
    s = texts[3] + "\ud800" + texts[3]
    assert enc.encode_ordinary(s) == enc.encode_ordinary(s.replace("\ud800", "\ufffd"))
    # Every reference the parts' lists took is released with the list.
    probe = enc.encode_ordinary("caf\u00e9 ")[0]
    obj = enc.encode_ordinary(texts[3])[0]
    assert obj == probe
    before = sys.getrefcount(obj)
    ids = enc.encode_ordinary(texts[3])
    assert sys.getrefcount(obj) > before
    del ids
    assert sys.getrefcount(obj) == before
