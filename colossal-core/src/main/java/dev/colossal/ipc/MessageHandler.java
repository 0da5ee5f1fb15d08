package dev.colossal.ipc;

import java.lang.foreign.MemorySegment;

/** Receives messages read from a {@link MessageRing} or a broadcast ring. */
@FunctionalInterface
public interface MessageHandler {

    /**
     * Called once per message. The bytes are valid only during the call: copy what you keep.
     *
     * @param type   the message type given by the writer
     * @param buffer the segment holding the message
     * @param offset where the message starts in {@code buffer}
     * @param length the message's length in bytes
     */
    void onMessage(int type, MemorySegment buffer, long offset, int length);
}
