package dev.colossal.codec;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Types the codec tests encode: public, so that Codecs.of needs no lookup. */
public final class Samples {

    private Samples() {}

    /** An enum. */
    public enum Color { RED, GREEN, BLUE }

    /** Every primitive. */
    public record Primitives(boolean z, byte b, short s, char c, int i, long l, float f, double d) {}

    /** Every built-in reference type. */
    public record Everything(String text, byte[] bytes, int[] ints, long[] longs, double[] doubles, float[] floats,
                             short[] shorts, char[] chars, boolean[] flags, UUID id, Instant at, Color color,
                             Optional<String> note, List<String> names, Set<Integer> numbers,
                             Map<String, Long> counts, Integer boxed, String[] labels, Primitives primitives) {}

    /** A recursive type: a linked list. */
    public record Node(int value, Node next) {}

    /** A recursive tree through a list. */
    public record Tree(String label, List<Tree> children) {}

    /** A plain class with a no-argument constructor and public mutable fields. */
    public static final class Mutable {
        public int count;
        public String name;
        public List<Long> values;

        public Mutable() {}
    }

    /** A plain class with a constructor that takes its fields in order. */
    public static final class Immutable {
        public final long id;
        public final String name;

        public Immutable(long id, String name) {
            this.id = id;
            this.name = name;
        }
    }

    /** A class decoded through an annotated constructor whose parameters come in another order. */
    public static final class Money {
        private final long cents;
        private final String currency;

        @CodecConstructor({"currency", "cents"})
        public Money(String currency, long cents) {
            this.cents = cents;
            this.currency = currency;
        }

        public long cents() {
            return cents;
        }

        public String currency() {
            return currency;
        }
    }

    /** A field whose type cannot be encoded. */
    public record Holder(String name, Inner inner) {}

    /** Holds an Object, which has no codec. */
    public record Inner(Object anything) {}
}
