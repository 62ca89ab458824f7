"""Chapters and article: what each notebook (notebooks/NN-<name>.py) shows, in the module of the
same name, the sections and tables they share, and the rendering of the executed notebooks into
the article (build/article.html)."""
