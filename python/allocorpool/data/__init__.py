"""Records and store: the engines' JSON Lines and GC logs read into DataFrames, the store of
finished cells (Parquet), and the original article's reference figures."""
