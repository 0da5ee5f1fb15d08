package dev.colossal.memory;

/**
 * A {@link ChunkPool} reached its limit and every chunk is in use. Raise the limit
 * ({@link ChunkPool.Builder#limit(long)}) or release chunks; {@link ChunkPool#tryAcquire()} reports the
 * same condition as a return value instead.
 */
public final class PoolExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the pool's limit and usage, and what to do
     */
    public PoolExhaustedException(String message) {
        super(message);
    }
}
