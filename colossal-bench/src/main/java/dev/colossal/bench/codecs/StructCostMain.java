package dev.colossal.bench.codecs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Instructions per operation, free of scheduling: {@code StructCostMain WARMUP COUNT [CASE]} calls one
 * benchmark method from a loop, the shape of JMH's stub, under
 * {@code colossal-bench/src/main/sh/struct-cost.sh}, which counts the measured part with callgrind.
 * CASE is {@code struct} (the default: {@link StructBench#structEncode()}) or a {@link CodecsBench}
 * method on MediaContent: {@code colossalEncode}, {@code colossalDecode}, {@code colossalRoundTrip},
 * {@code foryEncode}, {@code foryDecode}, {@code foryRoundTrip}.
 * After the warm-up and after the measured calls it prints a line and waits for one on stdin, so
 * the driver can zero and dump the counters exactly around the measured part.
 */
public final class StructCostMain {

    private static final int CALL = 1000;
    private static volatile long sink;

    private StructCostMain() {}

    /**
     * Runs WARMUP then COUNT operations.
     *
     * @param args warm-up operations, measured operations, and the case
     * @throws Exception if stdin or a serializer fails
     */
    public static void main(String[] args) throws Exception {
        long warmup = Long.parseLong(args[0]);
        int count = Integer.parseInt(args[1]);
        String which = args.length > 2 ? args[2] : "struct";
        BufferedReader driver = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Runnable op = operation(which);
        // many short calls, so that the loop itself reaches C2 (as JMH's stub does) before measuring
        for (long done = 0; done < warmup; done += CALL) {
            run(op, CALL);
        }
        System.out.println("WARM");
        driver.readLine();
        long start = System.nanoTime();
        run(op, count);
        long elapsed = System.nanoTime() - start;
        System.out.println("DONE");
        driver.readLine();
        System.out.printf(Locale.ROOT, "%s operations=%d ns/operation=%.2f%n", which, count, (double) elapsed / count);
    }

    private static Runnable operation(String which) throws IOException {
        if (which.equals("struct")) {
            StructBench bench = new StructBench();
            bench.setUp();
            return bench::structEncode;
        }
        CodecsBench b = new CodecsBench();
        b.shape = "media";
        b.setUp();
        return switch (which) {
            case "colossalEncode" -> () -> sink += b.colossalEncode();
            case "colossalDecode" -> () -> sink += System.identityHashCode(b.colossalDecode());
            case "colossalRoundTrip" -> () -> sink += System.identityHashCode(b.colossalRoundTrip());
            case "foryEncode" -> () -> sink += b.foryEncode();
            case "foryDecode" -> () -> sink += System.identityHashCode(b.foryDecode());
            case "foryRoundTrip" -> () -> sink += System.identityHashCode(b.foryRoundTrip());
            default -> throw new IllegalArgumentException("case=" + which + " is not struct, colossalEncode, "
                    + "colossalDecode, colossalRoundTrip, foryEncode, foryDecode or foryRoundTrip");
        };
    }

    private static void run(Runnable op, int n) {
        for (int i = 0; i < n; i++) {
            op.run();
        }
    }
}
