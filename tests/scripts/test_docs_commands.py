#!/usr/bin/env python3
"""The docs-commands checker's own rules, on hand-made blocks: an excerpt matches line for line,
'...' marks lines left out, an unmarked gap or a changed line fails, and `<!-- exit N -->` sets
the status a block expects."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_docs_commands as docs  # noqa: E402


class Excerpts(unittest.TestCase):
    OUT = "one\ntwo\nthree\nfour\n"

    def test_the_whole_output_matches(self):
        self.assertTrue(docs.excerpt_matches(["one", "two", "three", "four"], self.OUT))

    def test_dots_mark_lines_left_out_anywhere(self):
        for excerpt in (["one", "..."], ["...", "four"], ["one", "...", "four"],
                        ["...", "two", "three", "..."], ["..."]):
            self.assertTrue(docs.excerpt_matches(excerpt, self.OUT), excerpt)

    def test_a_gap_or_a_changed_line_without_dots_fails(self):
        for excerpt in (["one", "three"], ["one", "two"], ["two", "three", "four"],
                        ["one", "two", "three", "five"], ["one", "...", "five"]):
            self.assertFalse(docs.excerpt_matches(excerpt, self.OUT), excerpt)

    def test_trailing_spaces_do_not_count(self):
        self.assertTrue(docs.excerpt_matches(["one  ", "..."], "one\ntwo\n"))


class Blocks(unittest.TestCase):
    def parse(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(text)
        try:
            return list(docs.blocks_of(f.name))
        finally:
            os.unlink(f.name)

    def test_commands_their_excerpts_and_exit(self):
        blocks = self.parse("text\n<!-- exit 3 -->\n```console\n$ a --x \\\n  --y\nout 1\n"
                            "...\n$ b\n```\n\n```sh\n$ not run\n```\n```console\n$ c\n```\n")
        self.assertEqual(len(blocks), 2)
        line, expected, commands = blocks[0]
        self.assertEqual(expected, 3)
        self.assertEqual(commands, [("a --x \n  --y", ["out 1", "..."]), ("b", [])])
        self.assertEqual(blocks[1][1], 0)

    def test_an_unclosed_block_is_refused(self):
        with self.assertRaises(SystemExit):
            self.parse("```console\n$ a\n")


if __name__ == "__main__":
    unittest.main()
