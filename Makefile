# Convenience targets; each is one script under scripts/.
# Install: make && sudo make install (PREFIX=/usr/local, DESTDIR honoured).
.PHONY: all build arm64 arm64-boot-test arm64-bench install uninstall deb demo test repeat-tests bench soak kernel-test boot-test peer-bench gateway-test sensorproxy-test ros2-test fleet-bench gateway-bench

PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
export PREFIX SYSCONFDIR DESTDIR

all: build

# Release binaries with the Swift runtime linked in (.build-static/release).
build:
	./scripts/build-release.sh

install:
	./scripts/install.sh install

uninstall:
	./scripts/install.sh uninstall

# acceld, accelctl, acceld-gateway, acceld-sensorproxy, acceld-ros2 and the examples for aarch64, with
# Debian's own Swift in a sid chroot (.build-arm64/release; docs/INSTALL.md).
arm64:
	./scripts/cross-arm64.sh

# The arm64 package under systemd on an emulated arm64 board (QEMU virt,
# Cortex-A53); the test command runs it (scripts/arm64-test.sh).
arm64-boot-test: build arm64
	./scripts/arm64-boot-test.sh

# accel-bench pipeline and load in that guest: ARM figures, emulated.
arm64-bench: build
	./scripts/cross-arm64.sh accel-bench
	ACCELD_ARM64_BENCH=1 ./scripts/arm64-boot-test.sh

# The Debian packages (acceld, acceld-gateway, acceld-sensorproxy,
# acceld-ros2, python3-acceld) for this machine's architecture, built by
# dpkg-buildpackage from debian/ into .build-deb/; with ARCH=arm64,
# dpkg-buildpackage -aarm64 around the cross-built binaries. The man pages
# come from the native build either way.
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
ARCH ?= $(HOST_ARCH)
deb: build $(if $(filter-out $(HOST_ARCH),$(ARCH)),$(filter arm64,$(ARCH)))
	ARCH=$(ARCH) ./scripts/build-deb.sh

demo:
	./scripts/demo.sh

test:
	./scripts/test.sh

# One stage of the test command, and the builds it needs (make test-kernel;
# scripts/test.sh --list names them).
test-%:
	./scripts/test.sh $*

# swift test REPEAT times (5) on one build, BUSY busy loops beside it (0):
# prints "N passed, M failed". make repeat-tests BUSY=2 is the starved host.
repeat-tests:
	./scripts/repeat-tests.sh

# Benchmarks that print figures (docs/PERFORMANCE.md).
bench:
	./scripts/bench.sh

# acceld with one client against the Python poller a Pi user would write,
# on the kernel stage's chip emulator with one vCPU (QEMU): CPU, samples a
# second and context switches per sample (PEER_SECONDS, PEER_ROUNDS).
peer-bench:
	./scripts/peer-bench.sh

# 30 minutes at 400 Hz with clients coming and going: RSS and descriptors flat.
soak:
	./scripts/soak.sh

kernel-test:
	./scripts/kernel-test.sh

# The Debian package installed and run under a real systemd (QEMU).
boot-test:
	./scripts/boot-test.sh

# acceld-gateway with real components: headless Chromium, Prometheus,
# mosquitto, hostile HTTP, the fleet (scripts/gateway/).
gateway-test:
	./scripts/gateway-test.sh

# ROS 2 bags from accelctl record --format mcap, read back by rosbags and
# mcap-ros2-support (scripts/ros2/).
ros2-test:
	./scripts/ros2-test.sh

# acceld-sensorproxy against monitor-sensor, gdbus and dbus-send on a private
# system bus (scripts/sensorproxy/).
sensorproxy-test:
	./scripts/sensorproxy-test.sh

# The fleet alone: 16 boards, one broker, FLEET_SECONDS (60); prints the
# broker's messages a second and CPU.
fleet-bench:
	./scripts/gateway-test.sh test_gateway.Fleet

# What the gateway costs: CPU and RSS of acceld and the gateway with 0, 1,
# 10 and 50 WebSocket clients (release build).
gateway-bench:
	swift build -c release --product acceld && swift build -c release --product acceld-gateway
	cd scripts/gateway && ACCELD_BIN_DIR=$(CURDIR)/.build/release /usr/bin/python3 bench_gateway.py

# docs/gateway-live.png, the README's picture of the live page, from the
# browser test on a quiet run of the demo (scripts/screenshot.sh).
.PHONY: screenshot
screenshot:
	./scripts/screenshot.sh
