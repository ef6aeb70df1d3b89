// A comment planted for layout.comment_paths_finds_a_stale_name: it names
// framework/renamed_long_ago.hpp, which no tree holds, and sends a reader to planted.cpp (this
// file), which exists. The check run on this folder must name the first and only it.
int planted = 0;
