/**
 * jcstress ordering tests of the ipc package's shared-memory protocols: the rings' publication
 * (a message is seen whole or not at all, exactly once) and the chunk pool's ownership words (a
 * chunk is never held twice; what a holder wrote is seen by the next one). Run them with
 * {@code colossal-bench/src/main/sh/ipc-stress.sh}; they are not part of {@code ./colossal test}.
 */
package dev.colossal.bench.ipc.stress;
