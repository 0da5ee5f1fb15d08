package dev.colossal.bench.map;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Instructions per map get or put, free of scheduling: {@code MapCostMain OP ENTRIES WARMUP COUNT [STORE [VALUE_SIZE]]}
 * fills {@link MapBench}'s Colossal store (or STORE, e.g. colossal-unverified) (random int keys, 100-byte values or
 * VALUE_SIZE) and calls
 * {@link MapBench#get()} or {@link MapBench#put()} from a loop, the shape of JMH's stub, under
 * {@code colossal-bench/src/main/sh/map-cost.sh}, which counts the measured part with callgrind.
 * After the warm-up and after the measured calls it prints a line and waits for one on stdin, so
 * the driver can zero and dump the counters exactly around the measured part.
 */
public final class MapCostMain {

    private static final int CALL = 1000;

    private MapCostMain() {}

    /**
     * Fills the map, then runs WARMUP then COUNT operations.
     *
     * @param args get or put, entries, warm-up operations, measured operations, optionally the store and the value size
     * @throws IOException if the map or stdin fails
     */
    public static void main(String[] args) throws Exception {
        boolean get = switch (args[0]) {
            case "get" -> true;
            case "put" -> false;
            default -> throw new IllegalArgumentException("op=" + args[0] + " must be get or put");
        };
        MapBench bench = new MapBench();
        bench.store = args.length > 4 ? args[4] : "colossal";
        bench.entries = Integer.parseInt(args[1]);
        bench.valueSize = args.length > 5 ? Integer.parseInt(args[5]) : 100;
        long warmup = Long.parseLong(args[2]);
        int count = Integer.parseInt(args[3]);
        BufferedReader driver = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        bench.setUp();
        try {
            // many short calls, so that the loop itself reaches C2 (as JMH's stub does) before measuring
            for (long done = 0; done < warmup; done += CALL) {
                run(bench, get, CALL);
            }
            System.out.println("WARM");
            driver.readLine();
            long start = System.nanoTime();
            long sum = run(bench, get, count);
            long elapsed = System.nanoTime() - start;
            System.out.println("DONE");
            driver.readLine();
            System.out.printf(Locale.ROOT, "%s calls=%d ns/call=%.2f (sum %d)%n", args[0], count,
                    (double) elapsed / count, sum);
        } finally {
            bench.tearDown();
        }
    }

    private static long run(MapBench bench, boolean get, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (get) {
                sum += bench.get();
            } else {
                bench.put();
            }
        }
        return sum;
    }
}
