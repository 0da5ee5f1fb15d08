package dev.colossal.bench.ipc;

import dev.colossal.ipc.PingPong;
import dev.colossal.ipc.SharedRegion;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The Java side of the ping-pong benchmark: {@code PingPongMain odd|even PATH ROUNDS}, printing
 * the same line as the C program, computed the same way (sorted samples, first tenth skipped).
 */
public final class PingPongMain {

    private PingPongMain() {}

    /**
     * Plays one session.
     *
     * @param args role, region path, rounds
     */
    public static void main(String[] args) {
        String role = args[0];
        int rounds = Integer.parseInt(args[2]);
        long[] rtt = new long[rounds];
        int[] n = {0};
        try (SharedRegion region = PingPong.openRegion(Path.of(args[1]))) {
            PingPong.play(region, role.equals("odd") ? PingPong.Role.ODD : PingPong.Role.EVEN, rounds,
                    t -> rtt[n[0]++] = t);
        }
        int skip = Math.min(n[0] / 10, 100_000);
        long[] s = Arrays.copyOfRange(rtt, skip, n[0]);
        Arrays.sort(s);
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        int len = s.length;
        System.out.printf(Locale.ROOT,
                "role=%s rounds=%d samples=%d mean=%.1fns p50=%dns p90=%dns p99=%dns p99.9=%dns max=%dns%n",
                role, rounds, len, sum / len, s[(int) ((len - 1) * 0.50)], s[(int) ((len - 1) * 0.90)],
                s[(int) ((len - 1) * 0.99)], s[(int) ((len - 1) * 0.999)], s[len - 1]);
    }
}
