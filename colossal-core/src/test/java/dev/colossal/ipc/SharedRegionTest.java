package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.colossal.ChildJvm;
import dev.colossal.Interrupts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class SharedRegionTest {

    @TempDir
    Path dir;

    @Test
    void twoMappingsOfOneRegionSeeEachOthersWrites() {
        Path path = dir.resolve("r");
        try (SharedRegion a = SharedRegion.create(path, RegionKind.RAW, 4096);
             SharedRegion b = SharedRegion.open(path, RegionKind.RAW)) {
            a.setLongRelease(64, 42);
            assertEquals(42, b.getLongAcquire(64));
            b.setIntVolatile(4, 7);
            assertEquals(7, a.getIntVolatile(4));
            assertEquals(4096, b.payloadSize());
        }
    }

    @Test
    void anInterruptedThreadCreatesARegionAndKeepsItsFlag() {
        Thread.currentThread().interrupt();
        try (SharedRegion region = SharedRegion.create(dir.resolve("interrupted"), RegionKind.RAW, 1 << 20)) {
            assertTrue(Thread.interrupted(), "the flag is set again");
            region.setLong(0, 1);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aCreationAnInterruptCutShortLeavesNoFileBehind() throws Exception {
        int cut = 0;
        for (int attempt = 0; attempt < 20 && cut < 3; attempt++) {
            Path path = dir.resolve("cut-" + attempt);
            Throwable failure = Interrupts.interruptedThroughout(
                    () -> SharedRegion.create(path, RegionKind.RAW, 64 << 20).close());
            if (failure == null) {
                try (SharedRegion whole = SharedRegion.open(path, RegionKind.RAW)) {
                    assertEquals(64 << 20, whole.payloadSize());
                }
            } else {
                assertTrue(failure instanceof IpcException, failure.toString());
                assertFalse(Files.exists(path), "a failed creation deletes its file: " + failure.getMessage());
                cut++;
            }
        }
        assertTrue(cut > 0, "no creation was cut short by an interrupt: the test shows nothing");
    }

    @Test
    void contentsPersistInAFileAcrossCloseAndReopen() {
        Path path = dir.resolve("persist");
        try (SharedRegion region = SharedRegion.create(path, RegionKind.RAW, 128)) {
            region.setLong(8, 123456789L);
            region.force();
        }
        try (SharedRegion region = SharedRegion.openOrCreate(path, RegionKind.RAW, 128)) {
            assertEquals(123456789L, region.getLong(8));
        }
    }

    @Test
    void atomicOperationsReturnWhatTheyPromise() {
        try (SharedRegion region = SharedRegion.create(dir.resolve("a"), RegionKind.RAW, 64)) {
            assertTrue(region.compareAndSetLong(0, 0, 5));
            assertFalse(region.compareAndSetLong(0, 0, 6));
            assertEquals(5, region.getAndAddLong(0, 10));
            assertEquals(15, region.getLongOpaque(0));
            assertTrue(region.compareAndSetInt(12, 0, -1));
            assertEquals(-1, region.getAndAddInt(12, 2));
            assertEquals(1, region.getIntAcquire(12));
            region.setIntRelease(16, 3);
            region.setIntOpaque(20, 4);
            region.setInt(24, 5);
            region.setLongOpaque(32, 6);
            region.setLongVolatile(40, 7);
            assertEquals(3 + 4 + 5, region.getInt(16) + region.getIntOpaque(20) + region.getInt(24));
            assertEquals(6 + 7, region.getLong(32) + region.getLongVolatile(40));
        }
    }

    @Test
    void misalignedOffsetsAreRejectedNamingTheOffset() {
        try (SharedRegion region = SharedRegion.create(dir.resolve("m"), RegionKind.RAW, 64)) {
            var longError = assertThrows(IllegalArgumentException.class, () -> region.compareAndSetLong(12, 0, 1));
            assertTrue(longError.getMessage().contains("offset=12 is not a multiple of 8"), longError.getMessage());
            var intError = assertThrows(IllegalArgumentException.class, () -> region.getIntAcquire(6));
            assertTrue(intError.getMessage().contains("offset=6 is not a multiple of 4"), intError.getMessage());
            var outside = assertThrows(IndexOutOfBoundsException.class, () -> region.getLong(64));
            assertTrue(outside.getMessage().contains("offset=64"), outside.getMessage());
            assertEquals(0, region.getLong(56), "nothing was written by the rejected calls");
        }
    }

    @Test
    void openingAnotherKindSaysWhichKindItHolds() {
        Path path = dir.resolve("k");
        SharedRegion.create(path, RegionKind.CHUNK_POOL, 64).close();
        IpcException e = assertThrows(IpcException.class, () -> SharedRegion.open(path, RegionKind.RAW));
        assertTrue(e.getMessage().contains("kind=CHUNK_POOL") && e.getMessage().contains("kind=RAW"), e.getMessage());
    }

    @Test
    void openingAnotherVersionIsAClearError() throws IOException {
        Path path = dir.resolve("v");
        SharedRegion.create(path, RegionKind.RAW, 64).close();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 99),
                    RegionHeader.VERSION_OFFSET);
        }
        IpcException e = assertThrows(IpcException.class, () -> SharedRegion.open(path, RegionKind.RAW));
        assertTrue(e.getMessage().contains("version=99"), e.getMessage());
    }

    @Test
    void aFileThatIsNotARegionIsRejected() throws IOException {
        Path path = dir.resolve("junk");
        Files.write(path, new byte[4096]);
        Files.write(path, "definitely not a region".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                StandardOpenOption.WRITE);
        IpcException e = assertThrows(IpcException.class, () -> SharedRegion.open(path, RegionKind.RAW));
        assertTrue(e.getMessage().contains("not a Colossal region"), e.getMessage());
        byte[] after = Files.readAllBytes(path);
        assertEquals('d', after[0], "the file is left as it was");
    }

    @Test
    void aHeaderlessFileNobodyWritesIsRefusedAtOnce() throws IOException {
        Path stale = dir.resolve("stale"); // what a creator that died before its header leaves
        Files.write(stale, new byte[4096]);
        Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Path text = dir.resolve("text"); // shorter than a header, and not the zeros a creator writes
        Files.writeString(text, "hello");
        for (Path path : List.of(stale, text, Files.createFile(dir.resolve("empty-but-old")))) {
            if (path.endsWith("empty-but-old")) {
                Files.setLastModifiedTime(path, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
            }
            long start = System.nanoTime();
            IpcException e = assertThrows(IpcException.class, () -> SharedRegion.open(path, RegionKind.RAW));
            assertTrue(e.getMessage().contains("no complete region header") && e.getMessage().contains("delete it"),
                    e.getMessage());
            assertTrue(System.nanoTime() - start < 2_000_000_000L, path + " took " + (System.nanoTime() - start) + " ns");
        }
    }

    @Test
    void anOpenerWaitsForACreatorThatIsStillWritingItsFile() throws Exception {
        // A creator zeroing a big region on a slow disk: written for longer than the 5 s an opener
        // waits after the last write, then its header.
        Path path = dir.resolve("slow");
        long size = RegionHeader.LENGTH + 64;
        Thread creator = Thread.ofPlatform().start(() -> {
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                long deadline = System.nanoTime() + 6_500_000_000L;
                for (long at = 0; System.nanoTime() < deadline; at = (at + 1) % size) {
                    channel.write(ByteBuffer.allocate(1), at);
                    Thread.sleep(200);
                }
                try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                    RegionHeader.write(channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), RegionKind.RAW, size);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        while (!Files.exists(path)) {
            Thread.onSpinWait();
        }
        long start = System.nanoTime();
        try (SharedRegion region = SharedRegion.open(path, RegionKind.RAW)) {
            assertEquals(64, region.payloadSize());
        }
        assertTrue(System.nanoTime() - start > 6_000_000_000L, "it opened before the header was written");
        creator.join();
    }

    @Test
    void sizeMismatchAndMissingFilesAreClearErrors() {
        Path path = dir.resolve("s");
        SharedRegion.create(path, RegionKind.RAW, 64).close();
        IpcException size = assertThrows(IpcException.class, () -> SharedRegion.openOrCreate(path, RegionKind.RAW, 128));
        assertTrue(size.getMessage().contains("payloadSize=64"), size.getMessage());
        IpcException exists = assertThrows(IpcException.class, () -> SharedRegion.create(path, RegionKind.RAW, 64));
        assertTrue(exists.getMessage().contains("already exists"), exists.getMessage());
        IpcException missing = assertThrows(IpcException.class, () -> SharedRegion.open(dir.resolve("none"), RegionKind.RAW));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SharedRegion.shm("a/b"));
        assertThrows(IllegalArgumentException.class, () -> SharedRegion.shm("..")); // /dev/shm/.. is /dev
    }

    @Test
    void aRegionLargerThanTheFreeSpaceIsRefusedBeforeAnyByteIsWritten() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor() == 0, "cannot mount a 1 MiB tmpfs here (needs root)");
        try {
            // Zeroing it first would fill the tmpfs; one larger than RAM got the creator OOM-killed.
            Path path = small.resolve("big");
            IpcException e = assertThrows(IpcException.class, () -> SharedRegion.create(path, RegionKind.RAW, 64 << 20));
            assertTrue(e.getMessage().contains("usable="), e.getMessage());
            assertFalse(Files.exists(path), "nothing is left behind");
            assertEquals(Files.getFileStore(small).getTotalSpace(), Files.getFileStore(small).getUsableSpace(),
                    "the tmpfs is as empty as it was");
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    @Test
    void aPayloadSizeTheHeaderWouldOverflowIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> SharedRegion.create(dir.resolve("x"), RegionKind.RAW, Long.MAX_VALUE - 64));
        assertTrue(e.getMessage().contains("at most"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void useAfterCloseThrowsInsteadOfCrashing() {
        Path path = dir.resolve("c");
        SharedRegion region = SharedRegion.create(path, RegionKind.RAW, 64);
        region.close();
        region.close(); // a second close does nothing, as for any Closeable
        assertThrows(IllegalStateException.class, () -> region.getLongVolatile(0));
        for (var call : List.<Executable>of(region::payload, region::force)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("region " + path + " was closed"), e.getMessage());
        }
    }

    @Test
    void aRegionInAMissingDirectorySaysTheDirectoryIsMissing() {
        Path path = dir.resolve("no").resolve("such").resolve("r");
        IpcException e = assertThrows(IpcException.class, () -> SharedRegion.create(path, RegionKind.RAW, 64));
        assertTrue(e.getMessage().contains("directory " + path.getParent() + " does not exist"), e.getMessage());
        IpcException proc = assertThrows(IpcException.class,
                () -> SharedRegion.create(Path.of("/proc/colossal-no-region"), RegionKind.RAW, 64));
        assertTrue(proc.getMessage().contains("choose a directory where you may create files"), proc.getMessage());
    }

    @Test
    void getAndAddFromThreeProcessesAndThisOneLosesNoIncrement() throws Exception {
        Path path = SharedRegion.shm("colossal-test-add-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        int times = 50_000;
        try (SharedRegion region = SharedRegion.create(path, RegionKind.RAW, 64)) {
            List<ChildJvm> children = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(IpcChild.class, "add", path, times));
            }
            for (int i = 0; i < times; i++) {
                region.getAndAddLong(0, 1);
                region.getAndAddInt(8, 1);
            }
            for (ChildJvm child : children) {
                assertEquals(0, child.waitExit());
            }
            assertEquals(4L * times, region.getLongVolatile(0));
            assertEquals(4 * times, region.getIntVolatile(8));
        } finally {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void processesRacingToCreateEndUpInOneRegion() throws Exception {
        Path path = SharedRegion.shm("colossal-test-race-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        try {
            List<Thread> threads = new ArrayList<>();
            List<SharedRegion> regions = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 4; i++) {
                threads.add(Thread.ofPlatform().start(() -> regions.add(SharedRegion.openOrCreate(path, RegionKind.RAW, 64))));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(4, regions.size());
            regions.get(0).setLongVolatile(0, 99);
            for (SharedRegion region : regions) {
                assertEquals(99, region.getLongVolatile(0));
                region.close();
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
