package dev.colossal.struct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Struct interfaces (and records for codecs) from a class loader below Colossal's, as the source
 * launcher ({@code java -cp colossal-core.jar Example.java}), plugin and application-server loaders
 * make them: Colossal's loader cannot find these types by name. The sources are compiled here, so
 * no class of this test's loader is the same type.
 */
class ChildLoaderStructTest {

    /** In the unnamed package, like a source-launched file's types, with a nested struct from a package. */
    private static final Map<String, String> SOURCES = Map.of(
            "Quote.java", """
                    import dev.colossal.struct.Length;
                    import plugin.Venue;
                    public interface Quote {
                        long time(); void time(long t);
                        double price(); void price(double p);
                        @Length(8) String symbol(); void symbol(String s);
                        @Length(4) long bid(int level); void bid(int level, long v);
                        Venue venue();
                    }
                    """,
            "plugin/Venue.java", """
                    package plugin;
                    import dev.colossal.struct.Length;
                    public interface Venue {
                        int id(); void id(int v);
                        @Length(4) String code(); void code(String c);
                    }
                    """,
            "Trade.java", """
                    public record Trade(long id, String symbol, java.util.List<Integer> sizes) {}
                    """);

    @TempDir
    Path dir;

    @Test
    void flyweightsOfAnInterfaceOurLoaderCannotSeeReadAndWriteInPlace() throws Exception {
        try (URLClassLoader loader = compile();
             Arena arena = Arena.ofConfined()) {
            Class<?> quote = loader.loadClass("Quote");
            StructType<?> type = StructType.of(quote);
            StructArray<?> quotes = StructArray.allocate(type, 3, arena);
            Object q = at(quotes, 1);
            call(q, "time", 1_700_000_000_123L);
            call(q, "price", 101.25);
            call(q, "symbol", "EURUSD");
            call(q, "bid", 2, 42L);
            Object venue = call(q, "venue");
            call(venue, "id", 7);
            call(venue, "code", "XLON");

            Object again = at(quotes, 1);
            assertEquals(1_700_000_000_123L, call(again, "time"));
            assertEquals(101.25, call(again, "price"));
            assertEquals("EURUSD", call(again, "symbol"));
            assertEquals(42L, call(again, "bid", 2));
            assertEquals(0L, call(again, "bid", 3));
            assertEquals(7, call(call(again, "venue"), "id"));
            assertEquals("XLON", call(call(again, "venue"), "code"));
            assertEquals(0.0, call(at(quotes, 2), "price"), "the neighbour is untouched");

            // the bytes sit where the layout says, as C code sharing the memory would read them
            MemorySegment s = ((Flyweight) q).baseSegment();
            long base = ((Flyweight) q).baseOffset();
            assertEquals(101.25, s.get(ValueLayout.JAVA_DOUBLE, base + type.offsetOf("price")));
            assertEquals(42L, s.get(ValueLayout.JAVA_LONG, base + type.offsetOf("bid") + 2 * Long.BYTES));
            assertEquals(7, s.get(ValueLayout.JAVA_INT, base + type.offsetOf("venue")
                    + StructType.of(loader.loadClass("plugin.Venue")).offsetOf("id")));

            // the nested interface on its own: a second flyweight class beside the first
            StructType<?> venues = StructType.of(loader.loadClass("plugin.Venue"));
            Object v = at(StructArray.allocate(venues, 1, arena), 0);
            call(v, "code", "XPAR");
            assertEquals("XPAR", call(v, "code"));
        }
    }

    @Test
    void aLoaderWhoseStructsAndCodecsAreNoLongerUsedIsUnloaded() throws Exception {
        WeakReference<ClassLoader> gone = useStructsAndDropTheLoader();
        for (int i = 0; i < 50 && gone.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(gone.get(), "struct types or codecs keep their classes' loader alive");
    }

    /** In a method of its own, so that no local of the caller still holds the loader or its classes. */
    private WeakReference<ClassLoader> useStructsAndDropTheLoader() throws Exception {
        URLClassLoader loader = compile();
        try (Arena arena = Arena.ofConfined()) {
            Object q = at(StructArray.allocate(StructType.of(loader.loadClass("Quote")), 1, arena), 0);
            call(q, "price", 1.5);
            assertEquals(1.5, call(q, "price"));
            Class<?> trade = loader.loadClass("Trade");
            @SuppressWarnings("unchecked")
            Codec<Object> codec = (Codec<Object>) Codecs.of(trade);
            Object value = trade.getConstructors()[0].newInstance(7L, "EURUSD", List.of(1, 2));
            MemorySegment bytes = arena.allocate(codec.encodedSize(value));
            codec.encode(value, bytes, 0);
            // through an accessor: the record's own equals would pin the loader by itself (the
            // JDK's ObjectMethods bootstrap holds its call sites)
            assertEquals(List.of(1, 2), trade.getMethod("sizes").invoke(codec.decode(bytes)));
        }
        loader.close();
        return new WeakReference<>(loader);
    }

    @Test
    void codecsOfARecordOurLoaderCannotSeeRoundTrip() throws Exception {
        try (URLClassLoader loader = compile();
             Arena arena = Arena.ofConfined()) {
            Class<?> trade = loader.loadClass("Trade");
            Object value = trade.getConstructors()[0].newInstance(7L, "EURUSD", List.of(1, 2, 3));
            @SuppressWarnings("unchecked")
            Codec<Object> codec = (Codec<Object>) Codecs.of(trade);
            MemorySegment bytes = arena.allocate(codec.encodedSize(value));
            codec.encode(value, bytes, 0);
            assertEquals(value, codec.decode(bytes));
        }
    }

    @Test
    void anInterfaceWhoseLoaderCannotSeeColossalIsRefusedWithAMessage() throws Exception {
        Path lonely = dir.resolve("Lonely.java");
        Files.writeString(lonely, "public interface Lonely { long id(); void id(long v); }");
        javac(dir, lonely);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> type = loader.loadClass("Lonely");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StructType.of(type));
            assertTrue(e.getMessage().contains("do not see each other's classes"), e.getMessage());
        }
    }

    /** Compiles {@link #SOURCES} against Colossal's classes into a loader below this test's. */
    private URLClassLoader compile() throws IOException, URISyntaxException {
        Path[] files = new Path[SOURCES.size()];
        int i = 0;
        for (Map.Entry<String, String> e : SOURCES.entrySet()) {
            files[i] = dir.resolve(e.getKey());
            Files.createDirectories(files[i].getParent());
            Files.writeString(files[i++], e.getValue());
        }
        javac(dir, files);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
    }

    private static void javac(Path out, Path... files) throws URISyntaxException {
        List<String> args = new ArrayList<>(List.of("-cp",
                Path.of(StructType.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
                "-d", out.toString()));
        Arrays.stream(files).map(Path::toString).forEach(args::add);
        // the javac tool through java.base's ToolProvider: this module does not read java.compiler
        assertEquals(0, ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err,
                args.toArray(String[]::new)), "javac " + args);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object at(StructArray<?> array, long index) {
        StructArray raw = array;
        return raw.at(raw.flyweight(), index);
    }

    /** Calls the struct interface's method of that name and arity on a flyweight. */
    private static Object call(Object flyweight, String name, Object... args) throws Exception {
        for (Class<?> iface : flyweight.getClass().getInterfaces()) {
            for (Method m : iface.getMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                    try {
                        return m.invoke(flyweight, args);
                    } catch (InvocationTargetException e) {
                        throw (Exception) e.getCause();
                    }
                }
            }
        }
        throw new AssertionError("no method " + name + "/" + args.length + " on " + flyweight.getClass());
    }
}
