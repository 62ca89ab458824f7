"""Chapters and article: what each notebook (notebooks/NN-<name>.py) shows, in the module of the
same name (with a few helpers beside it), and the rendering of the executed notebooks into the
article (build/article.html, article.py). What the chapters show alike is in page/."""
