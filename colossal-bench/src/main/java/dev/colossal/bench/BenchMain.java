package dev.colossal.bench;

/** Runs a benchmark suite and writes its results under {@code bench/results/}. */
public final class BenchMain {
    private BenchMain() {}

    /**
     * Runs the suite named by the first argument.
     *
     * @param args suite name, then options such as {@code --quick}
     */
    public static void main(String[] args) {
        System.out.println("no suites yet");
    }
}
