package dev.colossal.bench.codecs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Instructions per struct write, free of scheduling: {@code StructCostMain WARMUP COUNT} calls
 * {@link StructBench#structEncode()} from a loop, the shape of JMH's stub, under
 * {@code colossal-bench/src/main/sh/struct-cost.sh}, which counts the measured part with callgrind.
 * After the warm-up and after the measured writes it prints a line and waits for one on stdin, so
 * the driver can zero and dump the counters exactly around the measured part.
 */
public final class StructCostMain {

    private static final int CALL = 1000;

    private StructCostMain() {}

    /**
     * Runs WARMUP then COUNT struct writes.
     *
     * @param args warm-up writes, measured writes
     * @throws IOException if stdin fails
     */
    public static void main(String[] args) throws IOException {
        long warmup = Long.parseLong(args[0]);
        int count = Integer.parseInt(args[1]);
        BufferedReader driver = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StructBench bench = new StructBench();
        bench.setUp();
        // many short calls, so that the loop itself reaches C2 (as JMH's stub does) before measuring
        for (long done = 0; done < warmup; done += CALL) {
            run(bench, CALL);
        }
        System.out.println("WARM");
        driver.readLine();
        long start = System.nanoTime();
        run(bench, count);
        long elapsed = System.nanoTime() - start;
        System.out.println("DONE");
        driver.readLine();
        System.out.printf(Locale.ROOT, "struct writes=%d ns/write=%.2f%n", count, (double) elapsed / count);
    }

    private static void run(StructBench bench, int n) {
        for (int i = 0; i < n; i++) {
            bench.structEncode();
        }
    }
}
