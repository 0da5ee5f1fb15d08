/**
 * Colossal core: huge, persistent, shareable data on the Foreign Function &amp; Memory API.
 *
 * <p>No runtime dependencies, no Unsafe, no JDK internals and no restricted
 * FFM methods: the module runs on a stock JDK 25 without flags and without warnings.
 * Packages depend one way only: {@code memory → array, codec, struct → map, swap, ipc}.
 */
module dev.colossal.core {
    exports dev.colossal.memory;
    exports dev.colossal.array;
    exports dev.colossal.codec;
    exports dev.colossal.struct;
    exports dev.colossal.ipc;
    exports dev.colossal.map;
    exports dev.colossal.swap;
}
