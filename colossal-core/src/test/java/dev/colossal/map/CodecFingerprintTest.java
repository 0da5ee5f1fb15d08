package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A typed map's file records the schema fingerprints of the codecs it was first opened with, and
 * refuses codecs of another schema: {@code Codecs.of} decodes by position, so a type that changed
 * shape read the old bytes as other values without a word (a user trial: an enum that gained a
 * constant in the middle read every RED as BLUE).
 */
class CodecFingerprintTest {

    /** The enum as first written. */
    public enum Before { RED, GREEN }

    /** The same enum after a constant was inserted before the others. */
    public enum After { BLUE, RED, GREEN }

    /** A value as first written. */
    public record Paint(String name, Before color) {}

    /** The same value after its enum changed. */
    public record PaintAfter(String name, After color) {}

    /** A value that evolves: fields are tagged by name. */
    public record Item(String name, int count) {}

    /** The same value with a field added. */
    public record ItemAfter(String name, int count, long price) {}

    @TempDir
    Path dir;

    private static <T> Codec<T> of(Class<T> type) {
        return Codecs.of(type, MethodHandles.lookup());
    }

    @Test
    void aValueTypeOfAnotherShapeIsRefusedAndTheFileKeptAsItWas() throws IOException {
        Path file = dir.resolve("paint.map");
        try (ColossalMap<String, Paint> map = ColossalMap.open(file, Codecs.string(), of(Paint.class))) {
            map.put("a", new Paint("a", Before.RED));
        }
        byte[] before = Files.readAllBytes(file);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ColossalMap.open(file, Codecs.string(), of(PaintAfter.class)));
        assertTrue(e.getMessage().contains("values written with another value type") && e.getMessage().contains(file.toString()),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ColossalMap.openReadOnly(file, Codecs.string(), of(PaintAfter.class)));
        assertThrows(IllegalArgumentException.class, () -> ColossalMap.open(file, Codecs.int64(), of(Paint.class)),
                "keys are checked too");
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(file)), "a refused open changes no byte");
        try (ColossalMap<String, Paint> map = ColossalMap.open(file, Codecs.string(), of(Paint.class))) {
            assertEquals(new Paint("a", Before.RED), map.get("a"));
        }
    }

    @Test
    void aCopyKeepsTheFingerprintsAndRawMapsRecordNone() throws IOException {
        Path file = dir.resolve("raw.map");
        try (BytesMap raw = BytesMap.open(file)) {
            raw.put(new byte[] {1}, new byte[] {2});
        }
        // A file no typed map opened yet takes the first codecs it meets.
        try (ColossalMap<String, Paint> map = ColossalMap.open(file, Codecs.string(), of(Paint.class))) {
            map.put("b", new Paint("b", Before.GREEN));
            map.copyTo(dir.resolve("copy.map"));
        }
        assertThrows(IllegalArgumentException.class,
                () -> ColossalMap.open(dir.resolve("copy.map"), Codecs.string(), of(PaintAfter.class)));
        try (ColossalMap<String, Paint> copy = ColossalMap.open(dir.resolve("copy.map"), Codecs.string(), of(Paint.class))) {
            assertEquals(new Paint("b", Before.GREEN), copy.get("b"));
        }
    }

    @Test
    void evolvingValuesAreNotCheckedAsTheyReadOtherVersions() throws IOException {
        Path file = dir.resolve("items.map");
        try (ColossalMap<String, Item> map = ColossalMap.open(file, Codecs.string(),
                Codecs.evolving(Item.class, MethodHandles.lookup()))) {
            map.put("x", new Item("x", 3));
        }
        try (ColossalMap<String, ItemAfter> map = ColossalMap.open(file, Codecs.string(),
                Codecs.evolving(ItemAfter.class, MethodHandles.lookup()))) {
            assertEquals(new ItemAfter("x", 3, 0), map.get("x"));
        }
    }
}
