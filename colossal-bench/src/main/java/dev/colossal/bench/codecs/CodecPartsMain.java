package dev.colossal.bench.codecs;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.fory.Fory;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Where a MediaContent encode and decode spend, by kind of field, ours and Fory's: MediaContent's
 * values regrouped into one record per kind (its ten strings, its ints, longs and boolean, its three
 * enums, and no field at all for the fixed cost of a call), each encoded and decoded in turn under
 * {@code colossal-bench/src/main/sh/codec-parts.sh}, which counts each case's instructions with
 * callgrind (zeroed before, dumped after). What the whole costs beyond the sum of the parts is the
 * structure: nested records, the two lists and their headers. All cases share one JVM, so the calls
 * inside the encode and decode entry points see every codec (a megamorphic call each, for ours and
 * for Fory's serializer dispatch alike): the empty case carries that fixed cost.
 */
public final class CodecPartsMain {

    /** No field: what a call costs before its first field. */
    public record Empty() {}

    /** MediaContent's ten string fields (one of them null). */
    public record Strings(String s0, String s1, String s2, String s3, String s4, String s5, String s6, String s7,
                          String s8, String s9) {}

    /** MediaContent's seven ints, two longs and one boolean. */
    public record Numbers(int i0, int i1, int i2, long l0, long l1, boolean b, int i3, int i4, int i5, int i6) {}

    /** MediaContent's three enums. */
    public record Enums(Model.Player player, Model.Size s0, Model.Size s1) {}

    /** The parts, in the order measured; each runs ours and Fory's encode and decode. */
    static final List<String> CASES = List.of("empty", "strings", "numbers", "enums", "media");
    static final List<String> OPS = List.of("colossalEncode", "colossalDecode", "foryEncode", "foryDecode");

    private static volatile long sink;

    private CodecPartsMain() {}

    /**
     * Warms every case, waits for a line, measures every case, waits for a line.
     *
     * @param args warm-up and measured operations per case
     * @throws Exception if a serializer fails or stdin closes
     */
    public static void main(String[] args) throws Exception {
        int warmup = Integer.parseInt(args[0]);
        int count = Integer.parseInt(args[1]);
        Fory fory = CodecsBench.fory(List.of(Model.MediaContent.class, Model.Media.class, Model.Image.class,
                Model.Player.class, Model.Size.class, Empty.class, Strings.class, Numbers.class, Enums.class));
        List<String> names = new ArrayList<>();
        List<Loop> loops = new ArrayList<>();
        for (String c : CASES) {
            Object value = value(c);
            for (String op : OPS) {
                names.add(c + " " + op);
                loops.add(operation(op, value, fory));
            }
        }
        BufferedReader driver = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (int done = 0; done < warmup; done += 1000) {
            for (Loop loop : loops) {
                sink += loop.run(1000);
            }
        }
        System.out.println("WARM");
        for (int k = 0; k < loops.size(); k++) {
            driver.readLine();
            sink += loops.get(k).run(count);
            System.out.println("DONE " + names.get(k));
        }
        driver.readLine();
    }

    /** One case's loop, a class of its own per case. */
    private interface Loop {
        long run(int n);
    }

    private static Object value(String c) {
        Model.MediaContent m = Model.mediaContent();
        Model.Media a = m.media();
        Model.Image i0 = m.images().get(0);
        Model.Image i1 = m.images().get(1);
        return switch (c) {
            case "empty" -> new Empty();
            case "strings" -> new Strings(a.uri(), a.title(), a.format(), a.persons().get(0), a.persons().get(1),
                    a.copyright(), i0.uri(), i0.title(), i1.uri(), i1.title());
            case "numbers" -> new Numbers(a.width(), a.height(), a.bitrate(), a.duration(), a.size(), a.hasBitrate(),
                    i0.width(), i0.height(), i1.width(), i1.height());
            case "enums" -> new Enums(a.player(), i0.size(), i1.size());
            case "media" -> m;
            default -> throw new IllegalArgumentException("case=" + c);
        };
    }

    @SuppressWarnings("unchecked")
    private static Loop operation(String op, Object value, Fory fory) {
        Codec<Object> codec = (Codec<Object>) Codecs.of(value.getClass());
        MemorySegment buffer = Arena.ofAuto().allocate(1 << 12);
        long end = codec.encode(value, buffer, 0);
        MemorySegment encoded = buffer.asSlice(0, end);
        MemoryBuffer foryBuffer = MemoryBuffer.fromByteArray(new byte[1 << 12]);
        fory.serialize(foryBuffer, value);
        MemoryBuffer foryEncoded = MemoryBuffer.fromByteArray(foryBuffer.getBytes(0, foryBuffer.writerIndex()));
        if (!value.equals(codec.decode(encoded)) || !value.equals(fory.deserialize(foryEncoded))) {
            throw new IllegalStateException("round trip changed " + value);
        }
        MemorySegment out = Arena.ofAuto().allocate(1 << 12);
        return switch (op) {
            case "colossalEncode" -> n -> {
                long x = 0;
                for (int i = 0; i < n; i++) {
                    x += codec.encode(value, out, 0);
                }
                return x;
            };
            case "colossalDecode" -> n -> {
                long x = 0;
                for (int i = 0; i < n; i++) {
                    x += System.identityHashCode(codec.decode(encoded));
                }
                return x;
            };
            case "foryEncode" -> n -> {
                long x = 0;
                for (int i = 0; i < n; i++) {
                    foryBuffer.writerIndex(0);
                    fory.serialize(foryBuffer, value);
                    x += foryBuffer.writerIndex();
                }
                return x;
            };
            case "foryDecode" -> n -> {
                long x = 0;
                for (int i = 0; i < n; i++) {
                    foryEncoded.readerIndex(0);
                    x += System.identityHashCode(fory.deserialize(foryEncoded));
                }
                return x;
            };
            default -> throw new IllegalArgumentException("op=" + op);
        };
    }
}
