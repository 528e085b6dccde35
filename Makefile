# Union mounts for Linux 6.12: build, boot and test.
#
#   make vm          build everything and boot the guest into a shell
#   make check       build everything and run the whole suite in QEMU
#   make bench       union vs plain vs overlayfs benchmarks (bench/README.md)
#   make stress      bounded load on writable unions, debug kernel
#                    (STRESS_TIME=seconds, default 1200; README "Stress")
#
# The kernel work tree and build directories live in $(UNION_CACHE)
# (default ~/.cache/union-mounts), never in this repository.  Under CI
# (CI=true) every build first resets the work tree to base + patches/,
# so it tests exactly the committed series.  See README.md.

SHELL := /bin/bash
S := scripts
FLAVOUR ?= debug
export FLAVOUR

.PHONY: all vm check tree reset-tree export series-status checkpatch kernel \
	userspace vm-run harness-selftest report-selftest clean help deps build-each \
	bench stress util-linux util-linux-export util-linux-reset

help:
	@sed -n '2,13p' Makefile
	@echo "other targets: tree export series-status checkpatch kernel userspace"
	@echo "               vm-run SCRIPT=file harness-selftest clean"
	@echo "               util-linux util-linux-export util-linux-reset"

deps:
	@$(S)/deps.sh

vm: deps
	@$(S)/pipeline.sh vm

check: deps report-selftest
	@$(S)/pipeline.sh check

bench: deps
	@$(S)/pipeline.sh bench

stress: deps
	@$(S)/pipeline.sh stress

vm-run: deps
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh"; exit 2; }
	@$(S)/pipeline.sh vm-run "$(abspath $(SCRIPT))"

# The harness judging itself: synthetic logs (fast, part of `make check`)
# and real guests that fail, hang and WARN (harness-selftest).
report-selftest:
	@$(S)/report-selftest.sh

harness-selftest: deps report-selftest
	@$(S)/pipeline.sh harness-selftest

tree: deps
	@$(S)/tree.sh tree

reset-tree: deps
	@$(S)/tree.sh reset

export:
	@$(S)/tree.sh export

series-status:
	@$(S)/tree.sh status

checkpatch: tree
	@$(S)/checkpatch.sh

kernel: tree
	@$(S)/lock.sh $(S)/build-kernel.sh $(FLAVOUR)

userspace: kernel
	@$(S)/lock.sh $(S)/build-userspace.sh

# The util-linux series (patches/util-linux/, README "mount(8), fstab and
# findmnt"): build the static mount, umount, findmnt (build-userspace does
# it too), rewrite the patches from the work tree, or reset the tree.
util-linux: deps
	@$(S)/lock.sh $(S)/util-linux.sh build

util-linux-export:
	@$(S)/util-linux.sh export

util-linux-reset: deps
	@$(S)/util-linux.sh reset

build-each: tree
	@$(S)/lock.sh $(S)/build-each.sh

clean:
	rm -rf out
