"""Records and store: the engines' JSON Lines, GC logs and the other programs' pause reports read into
DataFrames, the store of finished cells (Parquet), the tables the chapters receive, and the original
article's reference figures. It imports nothing from the layers above it (run, analysis, chapters)."""
