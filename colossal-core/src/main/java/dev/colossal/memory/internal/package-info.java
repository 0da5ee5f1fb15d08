/**
 * Helpers the other packages of Colossal share; not exported from the module, not an API.
 */
package dev.colossal.memory.internal;
