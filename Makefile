# Union mounts for Linux 6.12: build, boot and test.
#
#   make vm          build everything and boot the guest into a shell
#   make check       build everything and run the whole suite in QEMU
#
# The kernel work tree and build directories live in $(UNION_CACHE)
# (default ~/.cache/union-mounts), never in this repository.  Under CI
# (CI=true) `make check` first resets the work tree to base + patches/,
# so it tests exactly the committed series.

SHELL := /bin/bash
S := scripts
FLAVOUR ?= debug

.PHONY: all vm check tree reset-tree export series-status checkpatch kernel \
	userspace vm-run harness-selftest report-selftest clean help deps

all: kernel userspace

help:
	@sed -n '2,12p' Makefile

deps:
	@$(S)/deps.sh

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

# The tree the build uses: under CI exactly the committed series.
ifeq ($(CI),true)
TREE_STEP := reset-tree
else
TREE_STEP := tree
endif

kernel: $(TREE_STEP)
	@$(S)/lock.sh $(S)/build-kernel.sh $(FLAVOUR)

userspace: kernel
	@$(S)/build-userspace.sh

vm: userspace
	@$(S)/demo-vm.sh

check: report-selftest userspace
	@$(S)/lock.sh $(S)/check.sh

vm-run: userspace
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script.sh"; exit 2; }
	@$(S)/lock.sh $(S)/vm-run.sh "$(SCRIPT)"

# The harness judging itself: synthetic logs (fast, part of `make check`)
# and real guests that fail, hang and WARN (harness-selftest).
report-selftest:
	@$(S)/report-selftest.sh

harness-selftest: userspace report-selftest
	@$(S)/lock.sh $(S)/harness-selftest.sh

clean:
	rm -rf out
