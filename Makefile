.PHONY: install check test golden bench
install:
	pip install -e '.[dev]'
check:
	ruff check service tests
	ruff format --check service tests
	mypy
test:
	python -m pytest
golden:
	python -m tests.playthrough
bench:
	cardarena bench engine
