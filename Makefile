.PHONY: install check test golden bench
install:
	pip install -e '.[dev]'
check:
	ruff check service tournament clients tests bench docs/examples
	ruff format --check service tournament clients tests bench docs/examples
	mypy
test:
	python -m pytest
golden:
	python -m tests.playthrough
bench:
	cardarena bench engine
