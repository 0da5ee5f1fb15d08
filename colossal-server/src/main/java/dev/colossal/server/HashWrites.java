package dev.colossal.server;

/**
 * A hash as a write command changes it under its key's lock, whatever its encoding: a one-value
 * hash decoded whole ({@link HashValue}) or a bucketed one that reads only the buckets it needs
 * ({@link StoredHash}). Changes are kept in memory until the caller stores them.
 */
interface HashWrites {

    /** @return the value of {@code field}, null if absent */
    byte[] get(byte[] field);

    /**
     * Sets {@code field} to {@code value}.
     *
     * @return true if the field is new
     */
    boolean put(byte[] field, byte[] value);

    /** @return true if {@code field} was there */
    boolean remove(byte[] field);

    /** @return the number of fields, with the changes so far */
    long count();

    /** @return whether a field was set or removed since the hash was read */
    boolean changed();

    /**
     * Sets hash-max-listpack-value for the writes that follow: a field or value longer than
     * {@code bytes} makes a listpack hash a hashtable, as in Redis. A bucketed hash is one already.
     */
    default void listpackValueLimit(long bytes) {
    }
}
