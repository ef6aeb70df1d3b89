"""C++ source read once for where its prose and data are: its comments, its string and character
literals and its preprocessor directives, so that a checker reads code and not words. One lexer,
two views of what it finds:

    blank(text)   the text with comments, the contents of literals and whole directives turned
                  to spaces, newlines kept: every character keeps its place and every line its
                  number (tests/layout/check_function_lengths.py, tests/layout/check_raw_key_reads.py)
    strip(text)   (code, literals): the code with comments dropped (a block comment leaves its
                  newlines) and every literal emptied to "" or '' (a raw string leaves its
                  newlines), so lines still count; and each string literal's contents with the
                  line it starts on (tests/layout/check_framework_blind.py, check_recipe.py)

What it knows of C++: // and /* */ comments; string literals, raw ones (R"x(...)x", with an
encoding prefix) included; character literals, and the digit separator of 1'000'000 and
0xFF'FF, which is no literal; a directive, a # first on its line, to the end of the line and
across any backslash-newline. A literal left open ends at its line's end.

Scripts import it by path: sys.path.insert(0, the folder of this file).
"""
import re

# A raw string's opening: its prefix, R, the quote, the delimiter and the parenthesis.
RAW = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(')
HEX_NUMBER_BEFORE = re.compile(r"0[xX][0-9a-fA-F']*$")


def _identifier_char(c):
    return c.isalnum() or c == "_"


def _digit_separator(text, i):
    """Whether the ' at i separates digits (1'000, 0xFF'FF) rather than opening a literal."""
    if i == 0:
        return False
    before = text[i - 1]
    return before.isdigit() or (before in "abcdefABCDEF" and
                                HEX_NUMBER_BEFORE.search(text, 0, i) is not None)


def _literal_end(text, i, quote):
    """The index of the quote that closes the literal opened at i, or of the newline or end of
    text where it is left open."""
    j, n = i + 1, len(text)
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return min(j, n)


def lex(text):
    """(tokens, directives). tokens: (kind, start, end, body_start, body_end) for each comment
    ("comment", "block comment") and literal ("string", "raw string", "char"), in order, body the
    literal's contents (for a raw string, between its parentheses; for a raw string its quote is
    at body_start - len(delimiter) - 2). directives: (start, end) of each directive, whose text
    is lexed too."""
    tokens, directives = [], []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            directives.append((i, min(j, n)))
        line_start = c == "\n"
        raw = RAW.match(text, i) if c in "uULR" else None
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            tokens.append(("comment", i, j, i, j))
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            tokens.append(("block comment", i, j, i, j))
        elif raw and (i == 0 or not _identifier_char(text[i - 1])):
            close = text.find(")" + raw.group(1) + '"', raw.end())
            body_end = n if close < 0 else close
            j = n if close < 0 else close + len(raw.group(1)) + 2
            tokens.append(("raw string", i, j, raw.end(), body_end))
        elif c == '"' or (c == "'" and not _digit_separator(text, i)):
            j = _literal_end(text, i, c)
            end = j + 1 if j < n and text[j] == c else j
            tokens.append(("string" if c == '"' else "char", i, end, i + 1, j))
        else:
            i += 1
            continue
        i = tokens[-1][2]
    return tokens, directives


def _spaces(s):
    return "".join(c if c == "\n" else " " for c in s)


def blank(text):
    """The text with comments, the contents of literals and directives turned to spaces (their
    quotes kept, newlines kept): the same length, every character in its place."""
    tokens, directives = lex(text)
    out = list(text)
    for kind, start, end, body_start, body_end in tokens:
        if kind in ("comment", "block comment"):
            out[start:end] = _spaces(text[start:end])
        elif kind == "raw string":
            quote = text.index('"', start)
            out[quote + 1:end - 1] = _spaces(text[quote + 1:end - 1])
        else:
            out[start + 1:end - 1] = _spaces(text[start + 1:end - 1])
    for start, end in directives:
        out[start:end] = _spaces(text[start:end])
    return "".join(out)


def strip(text):
    """(code, literals): the code with comments dropped and literals emptied, newlines kept, and
    each string literal (raw ones included) as (line, contents)."""
    tokens, _ = lex(text)
    code, literals = [], []
    at, line = 0, 1
    for kind, start, end, body_start, body_end in tokens:
        code.append(text[at:start])
        line += text.count("\n", at, start)
        newlines = text.count("\n", start, end)
        if kind == "comment":
            pass
        elif kind == "block comment":
            code.append("\n" * newlines)
        elif kind == "char":
            code.append("''")
        else:
            literals.append((line, text[body_start:body_end]))
            code.append('""' + "\n" * newlines)
        line += newlines
        at = end
    code.append(text[at:])
    return "".join(code), literals
