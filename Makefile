# Convenience targets; each is one script under scripts/.
.PHONY: demo test bench soak kernel-test

demo:
	./scripts/demo.sh

test:
	./scripts/test.sh

# Benchmarks that print figures (docs/PERFORMANCE.md).
bench:
	./scripts/bench.sh

# 30 minutes at 400 Hz with clients coming and going: RSS and descriptors flat.
soak:
	./scripts/soak.sh

kernel-test:
	./scripts/kernel-test.sh
