package dev.colossal.codec;

import static dev.colossal.codec.CodecRoundTripTest.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Versions of one enum, {@code shop.Color}, that gained, lost or reordered constants, used by a record
 * at every depth (a field, a list, an optional, a map key, a nested record, a list of maps of nested
 * records, an array). Each version is compiled here into a class loader of its own, so that the
 * same class name can have different constants in one JVM.
 */
class CodecEnumEvolutionTest {

    /** Each version of the enum's constants, by a name for messages. */
    private static final Map<String, String> VERSIONS = new LinkedHashMap<>();

    static {
        VERSIONS.put("written", "RED, GREEN");
        VERSIONS.put("appended", "RED, GREEN, BLUE");
        VERSIONS.put("inserted", "BLUE, RED, GREEN");
        VERSIONS.put("reordered", "GREEN, RED");
        VERSIONS.put("removed", "RED");
    }

    private static final String PART = """
            package shop;
            public record Part(String name, Color color) {}
            """;

    private static final String ITEM = """
            package shop;
            import java.util.*;
            public record Item(String name, Color color, List<Color> palette, Optional<Color> accent,
                               Map<Color, Integer> stock, Part part, long id) {
                public static Item of(String a, String b) {
                    Color x = Color.valueOf(a);
                    Color y = Color.valueOf(b);
                    Map<Color, Integer> stock = new LinkedHashMap<>();
                    stock.put(x, 1);
                    stock.put(y, 2);
                    return new Item("n", x, Arrays.asList(x, y, null), Optional.of(y), stock, new Part("p", y), 7);
                }
            }
            """;

    private static final String DEEP = """
            package shop;
            import java.util.*;
            public record Deep(List<Map<String, Part>> parts, Color[] hues) {
                public static Deep of(String a) {
                    Color x = Color.valueOf(a);
                    return new Deep(List.of(Map.of("k", new Part("p", x))), new Color[] {x, null});
                }
                @Override
                public String toString() {
                    return "Deep" + parts + Arrays.toString(hues);
                }
            }
            """;

    /**
     * What {@code Codecs.evolving} wrote, before it wrote enums by name, for {@code Item.of("RED",
     * "GREEN")} and {@code Deep.of("GREEN")} of the "written" version: enums as ordinals.
     */
    private static final String ITEM_BY_ORDINAL = "07a2e4173ca078941c0301016ed87ef66acbef84cd02010048485921c306c51107"
            + "01030100010100cb8ef356af6d65450301010175fae1df4956a89e1001020100010100000001010102000000baa872035e82c"
            + "b200601010170010188a64ec0cebb8859080700000000000000";
    private static final String DEEP_BY_ORDINAL = "023143998ae1183bfe0d0101010101016b0101017001012e4b7a1168020ff905"
            + "0102010100";

    private static final Map<String, ClassLoader> LOADERS = new LinkedHashMap<>();

    @TempDir
    static Path dir;

    @BeforeAll
    static void compileEachVersion() throws Exception {
        for (Map.Entry<String, String> v : VERSIONS.entrySet()) {
            Path src = dir.resolve(v.getKey() + "-src/shop");
            Files.createDirectories(src);
            Files.writeString(src.resolve("Color.java"), "package shop;\npublic enum Color { " + v.getValue() + " }\n");
            Files.writeString(src.resolve("Part.java"), PART);
            Files.writeString(src.resolve("Item.java"), ITEM);
            Files.writeString(src.resolve("Deep.java"), DEEP);
            Path out = dir.resolve(v.getKey());
            List<String> args = new ArrayList<>(List.of("-d", out.toString()));
            for (String f : List.of("Color", "Part", "Item", "Deep")) {
                args.add(src.resolve(f + ".java").toString());
            }
            // the javac tool through java.base's ToolProvider: this module does not read java.compiler
            assertEquals(0, ToolProvider.findFirst("javac").orElseThrow().run(System.out, System.err,
                    args.toArray(String[]::new)), "javac " + args);
            LOADERS.put(v.getKey(), new URLClassLoader(new URL[] {out.toUri().toURL()},
                    CodecEnumEvolutionTest.class.getClassLoader()));
        }
    }

    @AfterAll
    static void closeLoaders() throws Exception {
        for (ClassLoader l : LOADERS.values()) {
            ((URLClassLoader) l).close();
        }
    }

    @Test
    void codecsOfChangeTheirFingerprintWhenAnEnumsConstantsChangeAtAnyDepth() throws Exception {
        for (String type : List.of("Color", "Part", "Item", "Deep")) {
            Set<Long> seen = new HashSet<>();
            for (String v : VERSIONS.keySet()) {
                long fingerprint = Codecs.fingerprint(Codecs.of(type(v, type)));
                assertTrue(seen.add(fingerprint), type + " of version " + v + " has another's fingerprint");
            }
        }
    }

    @Test
    void evolvingCodecsReadEnumsByNameWhateverConstantsTheReaderHas() throws Exception {
        for (String writer : VERSIONS.keySet()) {
            Codec<Object> out = evolving(writer, "Item");
            List<String> written = constants(writer);
            for (String reader : VERSIONS.keySet()) {
                Codec<Object> in = evolving(reader, "Item");
                List<String> known = constants(reader);
                for (String a : written) {
                    for (String b : written) {
                        Object value = item(writer, a, b);
                        MemorySegment bytes = Bytes.encode(out, value);
                        String what = writer + " " + a + "," + b + " read by " + reader;
                        if (known.contains(a) && known.contains(b)) {
                            assertEquals(value.toString(), in.decode(bytes).toString(), what);
                            continue;
                        }
                        // color holds a, then palette holds a and b: the first field to hold a missing one
                        String missing = known.contains(a) ? b : a;
                        CodecException e = assertThrows(CodecException.class, () -> in.decode(bytes), what);
                        assertContains(e.getMessage(), "field=" + (known.contains(a) ? "palette" : "color") + ":");
                        assertContains(e.getMessage(), "constant=" + missing + " is not in the enum now");
                    }
                }
            }
        }
    }

    @Test
    void evolvingCodecsReadEnumsByNameInsideNestedRecordsCollectionsAndArrays() throws Exception {
        Codec<Object> out = evolving("written", "Deep");
        for (String reader : List.of("appended", "inserted", "reordered")) {
            Object green = deep("written", "GREEN");
            assertEquals(green.toString(), evolving(reader, "Deep").decode(Bytes.encode(out, green)).toString(), reader);
        }
        Codec<Object> removed = evolving("removed", "Deep");
        assertEquals("Deep[{k=Part[name=p, color=RED]}][RED, null]",
                removed.decode(Bytes.encode(out, deep("written", "RED"))).toString());
        CodecException e = assertThrows(CodecException.class,
                () -> removed.decode(Bytes.encode(out, deep("written", "GREEN"))));
        assertContains(e.getMessage(), "field=parts:");
        assertContains(e.getMessage(), "constant=GREEN");
    }

    @Test
    void evolvingCodecsStillReadEnumsWrittenByOrdinalWhileTheOldConstantsKeepTheirOrder() throws Exception {
        MemorySegment item = MemorySegment.ofArray(HexFormat.of().parseHex(ITEM_BY_ORDINAL));
        MemorySegment deep = MemorySegment.ofArray(HexFormat.of().parseHex(DEEP_BY_ORDINAL));
        for (String reader : List.of("written", "appended")) {
            assertEquals(item("written", "RED", "GREEN").toString(), evolving(reader, "Item").decode(item).toString(),
                    reader);
            assertEquals("Deep[{k=Part[name=p, color=GREEN]}][GREEN, null]",
                    evolving(reader, "Deep").decode(deep).toString(), reader);
        }
        // an ordinal's constant is unknown once constants moved or went: refused, never remapped
        for (String reader : List.of("inserted", "reordered", "removed")) {
            CodecException e = assertThrows(CodecException.class, () -> evolving(reader, "Item").decode(item), reader);
            assertContains(e.getMessage(), "field=color was written with another type");
            assertContains(e.getMessage(), "wrote enums by ordinal");
            assertContains(e.getMessage(), "restore that order");
            e = assertThrows(CodecException.class, () -> evolving(reader, "Deep").decode(deep), reader);
            assertContains(e.getMessage(), "field=parts was written with another type");
        }
    }

    /** Two names alike in their first 8 bytes (a varint length and 7 letters), and a short one. */
    enum Verbose { A_CONSTANT_WITH_A_LONG_NAME, A_CONSTANT_WITH_A_LONG_NAMF, S }

    record Names(List<Verbose> values) {}

    @Test
    void enumNamesReadBackWhereverTheyFallInTheDecodeWindow() {
        Codec<Names> codec = Codecs.evolving(Names.class, MethodHandles.lookup());
        List<Verbose> values = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            values.add(i % 7 == 0 ? null : Verbose.values()[i % 3]);
        }
        // far more than the 8 KiB window: names straddle its refills
        Names many = new Names(values);
        assertEquals(many, Bytes.roundTrip(codec, many));
        MemorySegment bytes = Bytes.encode(codec, new Names(List.of(Verbose.A_CONSTANT_WITH_A_LONG_NAMF, Verbose.S)));
        for (long cut = 0; cut < bytes.byteSize(); cut++) {
            long at = cut;
            assertThrows(CodecException.class, () -> codec.decode(bytes.asSlice(0, at)), "cut at " + at);
        }
    }

    private static Class<?> type(String version, String simpleName) throws ClassNotFoundException {
        return Class.forName("shop." + simpleName, true, LOADERS.get(version));
    }

    @SuppressWarnings("unchecked")
    private static Codec<Object> evolving(String version, String simpleName) throws ClassNotFoundException {
        return (Codec<Object>) Codecs.evolving(type(version, simpleName), MethodHandles.publicLookup());
    }

    private static List<String> constants(String version) {
        return List.of(VERSIONS.get(version).split(", "));
    }

    private static Object item(String version, String a, String b) throws Exception {
        return call(type(version, "Item"), a, b);
    }

    private static Object deep(String version, String a) throws Exception {
        return call(type(version, "Deep"), a);
    }

    private static Object call(Class<?> type, String... args) throws Exception {
        Class<?>[] params = new Class<?>[args.length];
        Arrays.fill(params, String.class);
        try {
            return type.getMethod("of", params).invoke(null, (Object[]) args);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }
}
