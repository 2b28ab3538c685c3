// Declarations only: the fuzzer runtime defines them.
