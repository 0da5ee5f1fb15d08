package dev.colossal.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs JMH benchmarks from inside a suite and hands back their scores by name. */
public final class Jmh {

    private Jmh() {}

    /**
     * A JMH score.
     *
     * @param score the primary score
     * @param error the 99.9% confidence half-width ({@code NaN} with too few iterations)
     * @param unit  the score's unit, e.g. {@code ops/s}
     */
    public record Result(double score, double error, String unit) {}

    /**
     * Runs the benchmarks whose names match {@code includeRegex}.
     *
     * @param includeRegex JMH include pattern, e.g. {@code ArraysBench\.seq.*}
     * @param quick        one fork, short iterations (a run under a minute for a whole suite)
     * @param jvmArgs      extra flags for the forked JVMs (peers that need them)
     * @param params       JMH parameters as name, value, name, value ...; empty for the defaults
     * @return scores keyed by {@code method} or {@code method[param=value,...]} for parameterised runs
     * @throws RunnerException if JMH fails
     */
    public static Map<String, Result> run(String includeRegex, boolean quick, List<String> jvmArgs,
                                          String... params) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(includeRegex)
                .forks(1)
                .shouldFailOnError(true)
                .jvmArgsAppend(jvmArgs.toArray(String[]::new));
        if (quick) {
            options.warmupIterations(2).warmupTime(TimeValue.milliseconds(300))
                    .measurementIterations(3).measurementTime(TimeValue.milliseconds(300));
        } else {
            options.warmupIterations(5).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(8).measurementTime(TimeValue.seconds(1));
        }
        for (int i = 0; i + 1 < params.length; i += 2) {
            options.param(params[i], params[i + 1]);
        }
        options.timeout(TimeValue.minutes(10));
        Map<String, Result> results = new LinkedHashMap<>();
        for (RunResult run : new Runner(options.build()).run()) {
            var primary = run.getPrimaryResult();
            String method = run.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            StringBuilder key = new StringBuilder(method);
            var paramKeys = run.getParams().getParamsKeys();
            if (!paramKeys.isEmpty()) {
                key.append('[');
                boolean first = true;
                for (String k : paramKeys) {
                    key.append(first ? "" : ",").append(k).append('=').append(run.getParams().getParam(k));
                    first = false;
                }
                key.append(']');
            }
            results.put(key.toString(), new Result(primary.getScore(), primary.getScoreError(),
                    primary.getScoreUnit()));
        }
        return results;
    }
}
