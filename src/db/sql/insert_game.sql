INSERT INTO games (
    id, import_id, game_number, byte_offset, line, event_id, site, date, year, month,
    day, round, white_id, black_id, white_elo, black_elo, result, result_marker, lawful_result,
    termination, termination_ply, threefold_ply, fifty_ply, laws_edition, laws_undated, variant,
    start_fen, ply_count, moves, clocks, annotated,
    eco, opening_id, opening_ply, white_fide_id, black_fide_id,
    white_title, black_title, white_fed, black_fed, time_control, tc_class)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
    ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30,
    ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, ?41, ?42)
