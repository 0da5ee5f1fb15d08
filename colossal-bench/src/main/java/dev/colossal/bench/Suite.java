package dev.colossal.bench;

import java.util.List;

/**
 * One benchmark suite, run as {@code ./colossal bench NAME [--quick]}. A suite measures Colossal and
 * its peers in the same run and returns one {@link Row} per case; {@link BenchMain} prints the
 * table and writes {@code bench/results/NAME.md} and {@code bench/results/NAME.json}.
 */
public interface Suite {

    /** @return the name on the command line and of the result files, e.g. {@code arrays} */
    String name();

    /** @return one line saying what the suite measures */
    String description();

    /**
     * Runs every case.
     *
     * @param quick a run under a minute: fewer iterations and smaller sizes, wider errors
     * @return the measured rows, ratios already implied by the values
     * @throws Exception if a benchmark could not run
     */
    List<Row> run(boolean quick) throws Exception;

    /**
     * JVM flags the suite's forks ran with (peers may need some); recorded beside the results.
     *
     * @return the flags, empty when none
     */
    default List<String> jvmFlags() {
        return List.of();
    }
}
