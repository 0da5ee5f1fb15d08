package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import dev.colossal.array.LongArray;
import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import dev.colossal.memory.ChunkPool;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sessions of a persistent swap space: a session that dies (kill -9, in a child JVM) loses at most
 * what it changed, and every object of the earlier clean sessions is there, as it was, on the next
 * open; a second open of a file that is open is refused, saying so.
 */
class PersistentSessionTest extends TinySpaces {

    private static final Codec<String> STRINGS = Codecs.string();

    /** The settings every session of these tests opens the file with, the child's included. */
    static SwapSpace.Builder tiny(ChunkPool pool, Path file) {
        return SwapSpace.builder().budget(32_768).alignment(64).ioSize(8192).pool(pool).persistent(file);
    }

    private record Saved(long array, long text, long other) {}

    /** A clean session: an array swapped out, one resident, and a text; all written on close with a catalog. */
    private Saved cleanSession(Path file) {
        try (SwapSpace space = tiny(pool, file).build()) {
            SwappableArray<LongArray> array = filled(space, 3000, 31);
            array.swapOut(); // in the file before close; the others are written by close
            long text = space.store("saved cleanly", STRINGS).id();
            SwappableArray<LongArray> other = filled(space, 1000, 17);
            assertFalse(array.isResident());
            return new Saved(array.id(), text, other.id());
        }
    }

    private static SwappableArray<LongArray> filled(SwapSpace space, int length, long factor) {
        SwappableArray<LongArray> h = space.allocate(LongArray.class, length);
        try (LongArray a = h.acquire()) {
            for (int i = 0; i < length; i++) {
                a.set(i, i * factor);
            }
        }
        return h;
    }

    private void assertAsSaved(Path file, Saved saved) {
        try (SwapSpace space = tiny(pool, file).build()) {
            assertEquals(List.of(saved.array, saved.text, saved.other), space.ids(), "only the clean sessions' objects");
            check(space.array(saved.array, LongArray.class), 3000, 31);
            check(space.array(saved.other, LongArray.class), 1000, 17);
            assertEquals("saved cleanly", space.object(saved.text, STRINGS).get());
        }
    }

    private static void check(SwappableArray<LongArray> h, int length, long factor) {
        try (LongArray a = h.acquireReadOnly()) {
            assertEquals(length, a.length());
            for (int i = 0; i < length; i++) {
                assertEquals(i * factor, a.get(i), "element " + i);
            }
        }
    }

    @Test
    void aSessionKilledAfterOpeningLosesNothing() throws Exception {
        Path file = dir.resolve("kept.swap");
        Saved saved = cleanSession(file);
        try (ChildJvm child = ChildJvm.start(SwapChild.class, file, "open")) {
            child.awaitLine("open");
            child.kill9();
        }
        assertAsSaved(file, saved);
        assertAsSaved(file, saved); // and again: the reopening was a clean session too
    }

    @Test
    void aSessionKilledAfterChangingThingsLosesOnlyItsChanges() throws Exception {
        Path file = dir.resolve("kept.swap");
        Saved saved = cleanSession(file);
        try (ChildJvm child = ChildJvm.start(SwapChild.class, file, "change", saved.array, saved.text)) {
            child.awaitLine("changed");
            child.kill9();
        }
        assertAsSaved(file, saved);
        try (SwapSpace space = tiny(pool, file).build()) { // a clean session after the crash is kept in turn
            space.object(saved.text, STRINGS).close();
            filled(space, 500, 3);
        }
        try (SwapSpace space = tiny(pool, file).build()) {
            assertEquals(3, space.ids().size());
            check(space.array(saved.array, LongArray.class), 3000, 31);
            check(space.array(space.ids().getLast(), LongArray.class), 500, 3);
        }
    }

    @Test
    void aSecondOpenInThisProcessIsRefusedWithoutHarm() {
        Path file = dir.resolve("kept.swap");
        Saved saved = cleanSession(file);
        try (SwapSpace first = tiny(pool, file).build()) {
            SwapException e = assertThrows(SwapException.class, () -> tiny(pool, file).build());
            assertTrue(e.getMessage().contains("open already") && e.getMessage().contains(file.toString())
                    && !e.getMessage().contains("delete"), e.getMessage());
            assertEquals(3, first.ids().size());
        }
        assertAsSaved(file, saved);
    }

    @Test
    void anOpenInAnotherProcessIsRefusedUntilItDies() throws Exception {
        Path file = dir.resolve("kept.swap");
        Saved saved = cleanSession(file);
        try (SwapSpace first = tiny(pool, file).build(); ChildJvm child = ChildJvm.start(SwapChild.class, file, "try")) {
            child.awaitLine("refused: swap file=" + file + " is open already, in this process or another ("
                    + file + ".lock is locked): close that space first; a persistent swap file has one user at a time");
            assertEquals(0, child.waitExit());
            assertEquals(3, first.ids().size());
        }
        try (ChildJvm child = ChildJvm.start(SwapChild.class, file, "open")) {
            child.awaitLine("open");
            SwapException e = assertThrows(SwapException.class, () -> tiny(pool, file).build());
            assertTrue(e.getMessage().contains("open already"), e.getMessage());
            child.kill9();
        }
        assertAsSaved(file, saved);
    }

    @Test
    void aCloseThatCannotSaveKeepsTheLastCleanCatalogAndFreesTheFile() throws Exception {
        Path file = dir.resolve("kept.swap");
        Saved saved = cleanSession(file);
        long size = java.nio.file.Files.size(file);
        SwapSpace space = tiny(pool, file).maxFileBytes(size + 4096).build(); // no room for 24 KB more
        filled(space, 3000, 5);
        space.object(saved.text, STRINGS).close();
        java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, space::close);
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
        assertAsSaved(file, saved);
    }

    @Test
    void aFirstSessionKilledLeavesAnEmptySpaceNotARefusal() throws Exception {
        Path file = dir.resolve("new.swap");
        try (ChildJvm child = ChildJvm.start(SwapChild.class, file, "change")) {
            child.awaitLine("changed");
            child.kill9();
        }
        try (SwapSpace space = tiny(pool, file).build()) {
            assertEquals(List.of(), space.ids());
        }
    }
}
