package dev.colossal.codec;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/** Generates random values for property tests: nulls, empties, unicode with surrogate pairs. */
final class Gen {

    private final Random random;

    Gen(long seed) {
        this.random = new Random(seed);
    }

    Random random() {
        return random;
    }

    String string() {
        int kind = random.nextInt(6);
        int n = random.nextInt(kind == 0 ? 1 : 40);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (kind) {
                case 1 -> b.append((char) ('a' + random.nextInt(26)));
                case 2 -> b.append((char) random.nextInt(0x100)); // Latin-1
                case 3 -> b.append((char) (0x400 + random.nextInt(0x400))); // two-byte UTF-8
                case 4 -> b.appendCodePoint(0x1F600 + random.nextInt(80)); // surrogate pairs
                default -> b.appendCodePoint(random.nextInt(0x20000) & ~0xF800 | 0x20); // anything but surrogates
            }
        }
        return b.toString();
    }

    String nullableString() {
        return random.nextInt(5) == 0 ? null : string();
    }

    int size() {
        return random.nextInt(4) == 0 ? 0 : random.nextInt(20);
    }

    Samples.Primitives primitives() {
        return new Samples.Primitives(random.nextBoolean(), (byte) random.nextInt(), (short) random.nextInt(),
                (char) random.nextInt(), random.nextInt(), random.nextLong(), random.nextFloat(), random.nextDouble());
    }

    Samples.Everything everything() {
        int n = size();
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        // random-access, linked (the generated list loop's other path) and null lists
        int kind = random.nextInt(6);
        List<String> names = kind == 0 ? null : kind == 1 ? new LinkedList<>() : new ArrayList<>();
        for (int i = 0; names != null && i < size(); i++) {
            names.add(nullableString());
        }
        Set<Integer> numbers = new LinkedHashSet<>();
        for (int i = 0; i < size(); i++) {
            numbers.add(random.nextInt(5) == 0 ? null : random.nextInt());
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int i = 0; i < size(); i++) {
            counts.put(nullableString(), random.nextInt(5) == 0 ? null : random.nextLong());
        }
        String[] labels = random.nextInt(5) == 0 ? null : new String[size()];
        if (labels != null) {
            for (int i = 0; i < labels.length; i++) {
                labels[i] = nullableString();
            }
        }
        boolean[] flags = new boolean[size()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = random.nextBoolean();
        }
        return new Samples.Everything(nullableString(), random.nextInt(5) == 0 ? null : bytes,
                random.ints(size()).toArray(), random.longs(size()).toArray(), random.doubles(size()).toArray(),
                floats(size()), shorts(size()), string().toCharArray(), flags,
                random.nextInt(5) == 0 ? null : new UUID(random.nextLong(), random.nextLong()),
                random.nextInt(5) == 0 ? null : Instant.ofEpochSecond(random.nextInt(), random.nextInt(1_000_000_000)),
                random.nextInt(4) == 0 ? null : Samples.Color.values()[random.nextInt(3)],
                random.nextInt(5) == 0 ? null : Optional.ofNullable(nullableString()),
                random.nextInt(5) == 0 ? null : names, numbers, counts,
                random.nextInt(3) == 0 ? null : random.nextInt(), labels,
                random.nextInt(5) == 0 ? null : primitives());
    }

    private float[] floats(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = random.nextFloat();
        }
        return v;
    }

    private short[] shorts(int n) {
        short[] v = new short[n];
        for (int i = 0; i < n; i++) {
            v[i] = (short) random.nextInt();
        }
        return v;
    }
}
