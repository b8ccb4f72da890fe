# SPDX-License-Identifier: BSD-3-Clause
# Bootstrap for a fresh checkout. Once configure has run, GNU make reads
# the generated GNUmakefile instead of this file, so this only installs
# the Debian packages, generates and runs configure, then hands over.
CONFIGURE_FLAGS ?=

.DEFAULT_GOAL := all
.PHONY: bootstrap

Makefile: ;

bootstrap:
	@sh scripts/install-deps
	@test -x configure -a configure -nt configure.ac || autoreconf -fi
	@test -f GNUmakefile || ./configure $(CONFIGURE_FLAGS)

%: bootstrap
	@$(MAKE) -f GNUmakefile $@
