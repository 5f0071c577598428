# PinVault — build, run and test.
#
#   make run    build pinvaultd and serve on ./run/io.pinvault.Vault (state in ./run/state)
#   make test   install what is missing, then run every test
#
# Both install missing Debian packages when run as root, and otherwise print the
# apt-get command to run.

SWIFT        ?= swift
PYTHON       ?= python3
RUN_DIR      := $(CURDIR)/run
VENV         := $(CURDIR)/.venv
DEB_PACKAGES := libsodium-dev libsqlite3-dev pkg-config python3-venv python3-cryptography systemd util-linux

.PHONY: all deps build release run test venv clean

all: build

# Debian packages the build and the tests need.
deps:
	@missing=""; \
	for package in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		else \
			echo "missing Debian packages:$$missing"; \
			echo "run: sudo apt-get install -y$$missing"; \
			exit 1; \
		fi; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product pinvaultd

# The daemon in the foreground on a socket and state directory under ./run.
run: release
	@mkdir -p $(RUN_DIR)/state && chmod 700 $(RUN_DIR) $(RUN_DIR)/state
	$(CURDIR)/.build/release/pinvaultd \
		--config $(CURDIR)/config/pinvaultd.toml \
		--socket $(RUN_DIR)/io.pinvault.Vault \
		--state-directory $(RUN_DIR)/state

# The Python varlink package, for the test that proves any Varlink client works.
venv:
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/python -c 'import varlink' 2>/dev/null || $(VENV)/bin/pip install -q varlink

test: deps venv
	PINVAULT_PYTHON=$(VENV)/bin/python $(SWIFT) test

clean:
	rm -rf .build $(RUN_DIR) $(VENV)
