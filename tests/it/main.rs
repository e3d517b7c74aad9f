//! All integration tests in one binary: one link instead of one per file, which is most of
//! the test build's time on a two-core machine. Each file is a module named as before, so
//! `cargo test --profile ci oneway_cli::` runs one file's tests.

mod common;

mod alive_shortcut;
mod analyse_stage;
mod analysis;
mod annotate;
mod bulk_import;
mod check_parquet;
mod chess_corpus;
mod chess_rules;
mod cli_hardening;
mod cli_search;
mod counts_cli;
mod db_paths;
mod duplicates_pairs;
mod ends_cli;
mod export_cli;
mod findings_identical;
mod help_examples;
mod import_cli;
mod laws_costs;
mod laws_editions_cli;
mod laws_games;
mod laws_verdict;
mod long_tests;
mod moves_codec;
mod names_cli;
mod oneway_cli;
mod oneway_input;
mod oneway_out;
mod openings_lichess;
mod pgn_corpus;
mod pipeline_cli;
mod player_analysis;
mod players_cli;
mod position_laws;
mod positions_cli;
mod query_forms;
mod ratings_cli;
mod reader_hardening;
mod readme_examples;
mod search_corpus;
mod selection_cli;
mod stats_cli;
mod testdata_corpus;
mod tournament_cli;
mod tune_labels;
mod uci_engine;
mod unwinnability;
