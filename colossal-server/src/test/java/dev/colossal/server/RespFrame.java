package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A parsed RESP2/RESP3 reply that keeps its bytes: for comparing replies whose parts Redis orders
 * by chance (its hash tables') after putting those parts in one order, the rest byte for byte.
 *
 * @param type     the type byte ({@code *}, {@code %}, {@code $}, ...)
 * @param header   the frame's bytes up to its children (its whole bytes for a scalar)
 * @param children the elements (a map's keys and values alternate)
 */
record RespFrame(char type, byte[] header, List<RespFrame> children) {

    static RespFrame parse(byte[] b) {
        int[] at = {0};
        return parse(b, at);
    }

    private static RespFrame parse(byte[] b, int[] at) {
        int start = at[0];
        int eol = start;
        while (b[eol] != '\r') {
            eol++;
        }
        char type = (char) b[start];
        String n = new String(b, start + 1, eol - start - 1, StandardCharsets.US_ASCII);
        at[0] = eol + 2;
        List<RespFrame> children = new ArrayList<>();
        switch (type) {
            case '$', '=', '!' -> {
                if (!n.equals("-1")) {
                    at[0] += Integer.parseInt(n) + 2;
                }
                return new RespFrame(type, Arrays.copyOfRange(b, start, at[0]), List.of());
            }
            case '*', '~', '>', '%' -> {
                int count = n.equals("-1") ? 0 : Integer.parseInt(n) * (type == '%' ? 2 : 1);
                for (int i = 0; i < count; i++) {
                    children.add(parse(b, at));
                }
                return new RespFrame(type, Arrays.copyOfRange(b, start, eol + 2), children);
            }
            default -> {
                return new RespFrame(type, Arrays.copyOfRange(b, start, at[0]), List.of());
            }
        }
    }

    /** @return the frame's bytes */
    byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header);
        children.forEach(c -> out.writeBytes(c.bytes()));
        return out.toByteArray();
    }

    String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** @return this frame with its elements sorted by their bytes */
    RespFrame sorted() {
        return new RespFrame(type, header, children.stream().sorted(Comparator.comparing(RespFrame::text)).toList());
    }

    /** @return this map (in RESP2 a flat array) with its pairs sorted by their keys */
    RespFrame sortedPairs() {
        List<List<RespFrame>> pairs = new ArrayList<>();
        for (int i = 0; i < children.size(); i += 2) {
            pairs.add(List.of(children.get(i), children.get(i + 1)));
        }
        pairs.sort(Comparator.comparing(p -> p.get(0).text()));
        return new RespFrame(type, header, pairs.stream().flatMap(List::stream).toList());
    }

    /** @return this frame with child {@code i} replaced */
    RespFrame with(int i, RespFrame child) {
        List<RespFrame> c = new ArrayList<>(children);
        c.set(i, child);
        return new RespFrame(type, header, c);
    }
}
