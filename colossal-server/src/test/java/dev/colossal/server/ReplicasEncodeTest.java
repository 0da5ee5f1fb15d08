package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/**
 * The stream's commands as RESP, written in place: byte for byte what a RESP array of bulk strings
 * is, for counts and lengths on each side of every power of ten a header's digits change at.
 */
class ReplicasEncodeTest {

    @Test
    void everyHeaderWidthEncodesAsResp() {
        int[] lengths = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10_000, 123_456};
        for (int count : new int[] {1, 2, 9, 10, 11, 99, 100}) {
            byte[][] args = new byte[count][];
            for (int i = 0; i < count; i++) {
                args[i] = new byte[lengths[i % lengths.length]];
                java.util.Arrays.fill(args[i], (byte) ('a' + i % 26));
            }
            assertArrayEquals(Wire.encode(args), Replicas.encode(args), count + " arguments"); // the tests' own client's way
        }
    }
}
