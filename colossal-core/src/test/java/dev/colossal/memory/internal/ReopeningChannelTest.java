package dev.colossal.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReopeningChannelTest {

    @TempDir
    Path dir;

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedThreadsOperationRunsAndTheFlagStaysSet() throws IOException {
        try (ReopeningChannel channel = open()) {
            Thread.currentThread().interrupt();
            int written = channel.call(ch -> ch.write(ByteBuffer.wrap(new byte[8]), 0));
            assertEquals(8, written);
            assertTrue(Thread.interrupted(), "the flag is set again after the operation");
            assertEquals(8L, channel.call(FileChannel::size));
            assertFalse(Thread.currentThread().isInterrupted(), "a flag that was not set stays clear");
        }
    }

    @Test
    void aChannelAnInterruptClosedIsReopenedAndTheOperationRunAgain() throws IOException {
        try (ReopeningChannel channel = open()) {
            AtomicInteger runs = new AtomicInteger();
            int written = channel.call(ch -> {
                if (runs.getAndIncrement() == 0) {
                    Thread.currentThread().interrupt(); // as if interrupted in the middle: the JDK closes ch
                }
                return ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 5);
            });
            assertEquals(3, written);
            assertEquals(2, runs.get());
            assertTrue(Thread.interrupted(), "the interrupt that came during the operation is kept");
            ByteBuffer back = ByteBuffer.allocate(3);
            channel.call(ch -> ch.read(back.clear(), 5));
            assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), back.flip());
        }
    }

    @Test
    void aClosedChannelIsNotReopened() throws IOException {
        ReopeningChannel channel = open();
        channel.close();
        channel.close();
        assertThrows(ClosedChannelException.class, () -> channel.call(FileChannel::size));
    }

    @Test
    void anotherFileMovedToThePathIsNotWrittenTo() throws IOException {
        try (ReopeningChannel channel = open()) {
            Path other = Files.write(dir.resolve("other"), new byte[] {9});
            Files.move(other, channel.path(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            IOException e = assertThrows(IOException.class, () -> channel.call(ch -> {
                Thread.currentThread().interrupt();
                return ch.write(ByteBuffer.wrap(new byte[] {1}), 0);
            }));
            assertTrue(e.getMessage().contains("another file took its place"), e.getMessage());
            assertTrue(Thread.interrupted());
            assertEquals(9, Files.readAllBytes(channel.path())[0]);
        }
    }

    @Test
    void aFileUnlinkedWhileOpenIsReopenedThroughTheDescriptorKeptForIt() throws IOException {
        Path file = dir.resolve("unlinked");
        try (ReopeningChannel channel = ReopeningChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.DELETE_ON_CLOSE)) {
            assertFalse(Files.exists(file), "unlinked as soon as it is open");
            channel.call(ch -> ch.write(ByteBuffer.wrap(new byte[] {7, 8}), 0));
            for (int i = 0; i < 3; i++) {
                int at = 2 + i;
                AtomicInteger runs = new AtomicInteger();
                channel.call(ch -> {
                    if (runs.getAndIncrement() == 0) {
                        Thread.currentThread().interrupt(); // the JDK closes ch
                    }
                    return ch.write(ByteBuffer.wrap(new byte[] {(byte) at}), at);
                });
                assertEquals(2, runs.get());
                assertTrue(Thread.interrupted());
            }
            ByteBuffer back = ByteBuffer.allocate(5);
            channel.call(ch -> ch.read(back.clear(), 0));
            assertEquals(ByteBuffer.wrap(new byte[] {7, 8, 2, 3, 4}), back.flip(), "the same file, reopened three times");
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void appendIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ReopeningChannel.open(dir.resolve("log"),
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    }

    private ReopeningChannel open() throws IOException {
        return ReopeningChannel.open(dir.resolve("file"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }
}
