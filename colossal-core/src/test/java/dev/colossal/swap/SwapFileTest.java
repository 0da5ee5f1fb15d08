package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SwapFileTest {

    @TempDir
    Path dir;

    private static MemorySegment[] randomParts(Arena arena, SplittableRandom random, long... sizes) {
        MemorySegment[] parts = new MemorySegment[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            // Offsetting some parts by a few bytes sends them through the staging path.
            long skew = random.nextBoolean() ? 0 : 1 + random.nextInt(7);
            parts[i] = arena.allocate(sizes[i] + skew, 4096).asSlice(skew, sizes[i]);
            for (long b = 0; b < sizes[i]; b++) {
                parts[i].set(ValueLayout.JAVA_BYTE, b, (byte) random.nextInt());
            }
        }
        return parts;
    }

    private static MemorySegment[] like(Arena arena, MemorySegment[] parts) {
        MemorySegment[] copy = new MemorySegment[parts.length];
        for (int i = 0; i < parts.length; i++) {
            copy[i] = arena.allocate(parts[i].byteSize(), 4096);
        }
        return copy;
    }

    private static long total(MemorySegment[] parts) {
        long n = 0;
        for (MemorySegment p : parts) {
            n += p.byteSize();
        }
        return n;
    }

    @ParameterizedTest
    @ValueSource(longs = {64, 512, 4096})
    void shouldRoundTripBlocksOfEveryShapeThroughDirectAndStagedPaths(long alignment) throws IOException {
        SplittableRandom random = new SplittableRandom(alignment);
        try (Arena arena = Arena.ofConfined();
             SwapFile file = SwapFile.open(dir.resolve("a.swap"), false, alignment, Long.MAX_VALUE, 8192, Set.of())) {
            long[][] shapes = {{0}, {1}, {7, 9}, {4096}, {4096, 4096, 100}, {8192 * 3 + 5}, {4088}, {4089}, {65536, 3}};
            for (long[] shape : shapes) {
                MemorySegment[] parts = randomParts(arena, random, shape);
                long length = total(parts);
                long id = random.nextLong();
                long offset = file.write(id, parts, length);
                assertEquals(0, offset % alignment);
                MemorySegment[] back = like(arena, parts);
                file.read(offset, id, back, length);
                for (int i = 0; i < parts.length; i++) {
                    assertEquals(-1, parts[i].mismatch(back[i]), "part " + i + " of shape " + java.util.Arrays.toString(shape));
                }
            }
        }
    }

    /** Writes one block of 10,000 bytes at alignment 64 and returns its offset; the file stays. */
    private long writeOne(SwapFile file, MemorySegment[] parts) throws IOException {
        file.write(1, parts, 10); // a small neighbour first, so the block under test is not at offset 0
        return file.write(42, parts, total(parts));
    }

    private void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0x5a)).rewind();
            ch.write(b, position);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"magic", "length", "id", "crc", "payload-first", "payload-last", "trailer"})
    void shouldDetectEveryFlippedFieldNamingObjectFileAndOffset(String field) throws IOException {
        long alignment = 64;
        Path path = dir.resolve("c.swap");
        try (Arena arena = Arena.ofConfined();
             SwapFile file = SwapFile.open(path, true, alignment, Long.MAX_VALUE, 4096, Set.of())) {
            MemorySegment[] parts = randomParts(arena, new SplittableRandom(1), 6000, 4000);
            long length = total(parts);
            long offset = writeOne(file, parts);
            long payload = offset + BlockLayout.headerSpan(alignment);
            long at = switch (field) {
                case "magic" -> offset + BlockLayout.MAGIC_OFFSET;
                case "length" -> offset + BlockLayout.LENGTH_OFFSET + 1;
                case "id" -> offset + BlockLayout.ID_OFFSET;
                case "crc" -> offset + BlockLayout.CRC_OFFSET + 2;
                case "payload-first" -> payload;
                case "payload-last" -> payload + length - 1;
                default -> payload + length + 3;
            };
            flipByte(path, at);
            SwapCorruptedException e = assertThrows(SwapCorruptedException.class,
                    () -> file.read(offset, 42, like(arena, parts), length));
            assertEquals(42, e.objectId());
            assertEquals(path, e.file());
            assertEquals(offset, e.offset());
            assertTrue(e.getMessage().contains("id=42") && e.getMessage().contains(path.toString())
                    && e.getMessage().contains("offset=" + offset), e.getMessage());
            String expected = switch (field) {
                case "magic" -> "magic=";
                case "length" -> "length=";
                case "id" -> "header id=";
                case "trailer" -> "trailing id=";
                default -> "crc32c";
            };
            assertTrue(e.getMessage().contains(expected), field + ": " + e.getMessage());
        }
    }

    @Test
    void shouldChecksumLargeBlocksBesideTheIoAndStillCatchDamageAndTruncation() throws IOException {
        Path path = dir.resolve("big.swap");
        try (Arena arena = Arena.ofShared();
             SwapFile file = SwapFile.open(path, true, 4096, Long.MAX_VALUE, 1 << 20, Set.of())) {
            MemorySegment[] parts = randomParts(arena, new SplittableRandom(9), 1 << 20, 1 << 20, 1 << 20, 12_345);
            long length = total(parts);
            assertTrue(length >= Checksum.PARALLEL_MIN * 3);
            long offset = file.write(77, parts, length);
            MemorySegment[] back = like(arena, parts);
            file.read(offset, 77, back, length);
            for (int i = 0; i < parts.length; i++) {
                assertEquals(-1, parts[i].mismatch(back[i]), "part " + i);
            }
            flipByte(path, offset + 4096 + (5L << 19));
            SwapCorruptedException damaged = assertThrows(SwapCorruptedException.class,
                    () -> file.read(offset, 77, like(arena, parts), length));
            assertTrue(damaged.getMessage().contains("crc32c"), damaged.getMessage());
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                ch.truncate(offset + (3L << 19));
            }
            SwapCorruptedException cut = assertThrows(SwapCorruptedException.class,
                    () -> file.read(offset, 77, like(arena, parts), length));
            assertTrue(cut.getMessage().contains("truncated"), cut.getMessage());
        }
    }

    @Test
    void shouldDetectATruncatedBlockOnRead() throws IOException {
        Path path = dir.resolve("t.swap");
        try (Arena arena = Arena.ofConfined();
             SwapFile file = SwapFile.open(path, true, 64, Long.MAX_VALUE, 4096, Set.of())) {
            MemorySegment[] parts = randomParts(arena, new SplittableRandom(2), 9000);
            long offset = writeOne(file, parts);
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                ch.truncate(offset + 5000);
            }
            SwapCorruptedException e = assertThrows(SwapCorruptedException.class,
                    () -> file.read(offset, 42, like(arena, parts), 9000));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertEquals(offset, e.offset());
        }
    }

    @Test
    void shouldGiveTheExtentBackWhenTheFileLimitIsReached() throws IOException {
        try (Arena arena = Arena.ofConfined();
             SwapFile file = SwapFile.open(dir.resolve("l.swap"), false, 64, 4096, 4096, Set.of())) {
            MemorySegment[] parts = randomParts(arena, new SplittableRandom(3), 3000);
            long first = file.write(5, parts, 3000);
            IOException e = assertThrows(IOException.class, () -> file.write(6, parts, 3000));
            assertTrue(e.getMessage().contains("limit"), e.getMessage());
            file.free(first, 3000);
            assertEquals(0, file.usage()[3], "file empty again");
            assertEquals(0, file.write(6, parts, 3000), "the space is reusable");
        }
    }

    @Test
    void shouldLeaveNoTemporaryFileBehindButKeepAPersistentOne() throws IOException {
        Path temp = dir.resolve("d.swap");
        Path kept = dir.resolve("k.swap");
        try (Arena arena = Arena.ofConfined();
             SwapFile file = SwapFile.open(temp, false, 64, Long.MAX_VALUE, 4096, Set.of());
             SwapFile persistent = SwapFile.open(kept, true, 64, Long.MAX_VALUE, 4096, Set.of())) {
            MemorySegment[] parts = randomParts(arena, new SplittableRandom(4), 100);
            long offset = file.write(1, parts, 100);
            file.read(offset, 1, like(arena, parts), 100); // still readable: unlinked, not gone
            persistent.write(1, parts, 100);
        }
        assertTrue(Files.notExists(temp), "a temporary swap file is deleted (unlinked as soon as it is open)");
        assertTrue(Files.exists(kept));
    }
}
