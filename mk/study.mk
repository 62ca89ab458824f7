# The study: notebooks, the papermill sweep and the article. (Filled in by the study work.)
.PHONY: test-notebooks
test-notebooks:
	@echo "no study notebooks yet"
