# The two commands. Each one installs whatever is missing first.
.PHONY: run test setup build bench-ui bench-weight

ARGS ?=

run:
	@scripts/run.sh $(ARGS)

test:
	@scripts/test.sh

setup:
	@scripts/setup.sh test

build:
	@scripts/build.sh release

# The long-run browser benchmark (figures in docs/figures.md).
bench-ui:
	@scripts/bench-ui.sh

# What each page fetches of the bundle before it is interactive (figures in docs/figures.md).
bench-weight:
	@scripts/bench-weight.sh
