package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a writer child's acknowledgements and checks the map against them. */
final class Acks {

    private Acks() {
    }

    /** The last op acknowledged in {@code file}, or -1. */
    static long last(Path file) throws IOException {
        if (!Files.exists(file)) {
            return -1;
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long len = f.length();
            byte[] tail = new byte[(int) Math.min(len, 64)];
            f.seek(len - tail.length);
            f.readFully(tail);
            String[] lines = new String(tail, StandardCharsets.US_ASCII).split("\\n");
            for (int i = lines.length - 1; i >= 0; i--) {
                String line = lines[i].trim();
                if (!line.isEmpty() && !line.equals("ready") && !line.equals("end") && (i > 0 || tail.length == len)) {
                    return Long.parseLong(line);
                }
            }
            return -1;
        }
    }

    /**
     * Checks a writer's keys (see {@link MapChild}) against its last acknowledged op: everything
     * acknowledged is there, the op in flight may or may not be, nothing later is.
     *
     * @return the number of acknowledged ops checked
     */
    static long check(ColossalMap<String, String> map, String prefix, long last) {
        long inFlight = last + 1;
        for (long i = 0; i <= inFlight + 1; i++) {
            String actual = map.get(MapChild.key(prefix, i));
            String where = "writer=" + prefix + " lastAck=" + last + " key=" + MapChild.key(prefix, i);
            boolean touchedInFlight = i == inFlight || (inFlight % 3 == 0 && inFlight >= 5 && i == inFlight - 5);
            if (actual != null) {
                assertEquals(MapChild.value(prefix, i), actual, where);
            }
            if (touchedInFlight) {
                continue;
            }
            if (i > inFlight) {
                assertEquals(null, actual, where + ": never written");
                continue;
            }
            boolean removed = (i + 5) <= last && (i + 5) % 3 == 0;
            assertEquals(!removed, actual != null, where + (removed ? ": acknowledged remove" : ": acknowledged put"));
        }
        return last + 1;
    }
}
