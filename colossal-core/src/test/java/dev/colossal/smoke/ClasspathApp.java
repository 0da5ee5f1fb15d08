package dev.colossal.smoke;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import dev.colossal.struct.Length;
import dev.colossal.struct.StructArray;
import dev.colossal.struct.StructType;
import dev.colossal.swap.SwapSpace;
import dev.colossal.swap.SwappableObject;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A user's application on the class path, using Colossal from the module path: its records and
 * struct interface live in the unnamed module, which Colossal's named module does not read at start;
 * every exported package it uses must be exported (the swap package once was not).
 * Run by {@code dev.colossal.codec.ClasspathUseTest} in a fresh JVM; prints "ok".
 */
public final class ClasspathApp {

    private ClasspathApp() {}

    /** A user record. */
    public record Order(long id, String customer, List<Line> lines) {}

    /** A nested user record. */
    public record Line(String sku, int quantity, double price) {}

    /** A user struct. */
    public interface Quote {
        long time();

        void time(long v);

        @Length(8)
        String symbol();

        void symbol(String v);
    }

    /** A record only the app's own lookup can see. */
    record Secret(int value) {}

    /**
     * Encodes and decodes, writes and reads a struct, and fails loudly if anything differs.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        Codec<Order> codec = Codecs.of(Order.class);
        Order order = new Order(7, "ann", List.of(new Line("x-1", 2, 9.5), new Line("y-2", 1, 0.25)));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = arena.allocate(codec.encodedSize(order));
            codec.encode(order, bytes, 0);
            check(order.equals(codec.decode(bytes)), "codec round trip");
            Codec<Secret> secret = Codecs.of(Secret.class, java.lang.invoke.MethodHandles.lookup());
            MemorySegment s = arena.allocate(secret.encodedSize(new Secret(3)));
            secret.encode(new Secret(3), s, 0);
            check(secret.decode(s).value() == 3, "non-public record with the app's lookup");
            StructArray<Quote> quotes = StructArray.allocate(StructType.of(Quote.class), 4, arena);
            Quote q = quotes.flyweight();
            quotes.at(q, 3).time(42);
            q.symbol("EURUSD");
            check(quotes.at(quotes.flyweight(), 3).time() == 42 && q.symbol().equals("EURUSD"), "struct");
        }
        try (SwapSpace space = SwapSpace.builder().budget(1 << 20).build()) {
            SwappableObject<Order> kept = space.store(order, codec);
            kept.swapOut();
            check(order.equals(kept.get()), "swap space from the module path");
        }
        System.out.println("ok");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what + " failed");
        }
    }
}
