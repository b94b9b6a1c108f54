# medvigil developer entry points. `make demo` and `make test` set up .venv/ first when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.medvigil-installed
DEMO_OUT ?= demo_out
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_HUB_DISABLE_TELEMETRY := 1

.PHONY: setup demo test bench bench-commands clean

setup: $(STAMP)

# torch/torchvision are pinned to the builds that lmms-eval needs on these machines;
# requirements/constraints.txt pins everything else to the versions CI tests.
$(STAMP): setup.cfg pyproject.toml requirements/constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.14.1" "torchvision==0.29.1"
	$(BIN)/python -m pip install --quiet -c requirements/constraints.txt -e ".[lmms,test]"
	touch $(STAMP)

# The main job on the embedded synthetic release: sample, validate + build, real lmms-eval
# runs of the four baselines, bootstrap scoring, report ($(DEMO_OUT)/report/report.html).
demo: setup
	$(BIN)/python -m medvigil demo --out $(DEMO_OUT) --force

# two workers (the machines have 2 cores); a module's tests stay in one worker (its fixtures built once)
test: setup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: setup
	$(BIN)/python benchmarks/bench_scoring.py --models 18 --cases 3000

# whole-process timings of score / validate / report on generated 300- and 3,000-case inputs
bench-commands: setup
	$(BIN)/python benchmarks/bench_commands.py --scales 1 10

clean:
	rm -rf $(DEMO_OUT) build dist *.egg-info .pytest_cache
