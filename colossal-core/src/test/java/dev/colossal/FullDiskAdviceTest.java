package dev.colossal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ipc.IpcException;
import dev.colossal.ipc.SharedChunkPool;
import dev.colossal.memory.ChunkPool;
import dev.colossal.memory.MappedArena;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory or file that cannot be made because the disk is full (here a tmpfs with no inode left,
 * mounted when the tests run as root, skipped otherwise) is reported as a full disk, with the advice
 * to free space: a user trial on a full 200 MB ext4 read "choose a writable directory on a local file
 * system" from an arena, and on a full xfs "choose a directory where you may create files" from a
 * shared pool, which send one looking for a permission or mount problem that is not there.
 */
class FullDiskAdviceTest {

    @TempDir
    Path dir;
    private SmallTmpfs full;

    @BeforeEach
    void mountTmpfsWithoutInodes() throws Exception {
        // nr_inodes=1: the root directory takes the only inode, so mkdir and creat fail with ENOSPC.
        full = SmallTmpfs.mount(dir.resolve("full"), "size=1m,nr_inodes=1");
    }

    @AfterEach
    void unmount() throws Exception {
        full.close();
    }

    @Test
    void anArenaInADirectoryAFullDiskCannotHoldSaysToFreeSpace() {
        assertFullDisk(assertThrows(UncheckedIOException.class,
                () -> MappedArena.builder().directory(full.path().resolve("arena")).build()));
    }

    @Test
    void aChunkPoolInADirectoryAFullDiskCannotHoldSaysToFreeSpace() {
        assertFullDisk(assertThrows(UncheckedIOException.class,
                () -> ChunkPool.builder().directory(full.path().resolve("pool")).build()));
    }

    @Test
    void aSharedPoolAFullDiskCannotHoldSaysToFreeSpace() {
        IpcException e = assertThrows(IpcException.class, () -> SharedChunkPool.open(full.path().resolve("pool"), 4096, 4));
        assertFullDisk(e.getMessage());
        assertFalse(e.getMessage().contains("where you may create files"), e.getMessage());
    }

    private static void assertFullDisk(UncheckedIOException e) {
        assertFullDisk(e.getMessage());
        assertFalse(e.getMessage().contains("local file system"), e.getMessage());
    }

    private static void assertFullDisk(String message) {
        assertTrue(message.contains("No space left on device")
                && message.contains("free disk space or choose another directory"), message);
    }
}
