"""The page the chapters share: how a notebook shows a table, a figure, a failure or a claim (display, tables,
figures, claims), the sections every chapter shows the same way (sections), and the rules the rendered article
is read against (readability). It imports no chapter module: the chapters import it."""
