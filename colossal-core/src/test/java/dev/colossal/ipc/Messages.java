package dev.colossal.ipc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The test messages: message {@code seq} of producer {@code p} has a length that varies with
 * {@code seq}, starts with {@code seq}, ends with {@code seq ^ p}, and every byte between is
 * derived from both, so a torn, reordered or misplaced message fails {@link #check}.
 */
final class Messages {

    private Messages() {}

    static int length(long seq, int maxLength) {
        return 16 + (int) ((seq * 37) % (maxLength - 15));
    }

    static void fill(MemorySegment buffer, long offset, int producer, long seq, int length) {
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, seq);
        for (int i = 8; i < length - 8; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seq * 31 + i + producer));
        }
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + length - 8, seq ^ producer);
    }

    /** @return the message's seq, after checking every byte */
    static long check(MemorySegment buffer, long offset, int producer, int length, int maxLength) {
        long seq = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        if (length != length(seq, maxLength)) {
            throw new AssertionError("reordering detected: seq=" + seq + " has length=" + length
                    + ", expected " + length(seq, maxLength));
        }
        for (int i = 8; i < length - 8; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != (byte) (seq * 31 + i + producer)) {
                throw new AssertionError("reordering detected: seq=" + seq + " byte " + i + " not yet written");
            }
        }
        long tail = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + length - 8);
        if (tail != (seq ^ producer)) {
            throw new AssertionError("reordering detected: seq=" + seq + " last word=" + tail);
        }
        return seq;
    }
}
