/* CPython's random.choice stream, compiled: the draws of medvigil.scoring.bootstrap.CPythonRandomStream.
 *
 * The state is CPython's (random.Random.getstate()): 624 untempered Mersenne Twister words and the
 * position of the next one (624: twist first). Each function takes the words as a writable buffer
 * of 624 uint32, the position, and an output buffer, and returns the new position; it consumes
 * exactly the words CPython's calls would, so the stream continues from there in either.
 *
 * words(state, pos, out)      -> pos   out (uint32): the next len(out) outputs, getrandbits(32)
 * choices(state, pos, n, out) -> pos   out (uint32): len(out) values of _randbelow(n), 1 <= n < 2**32
 * counts(state, pos, n, out)  -> pos   out (float32, rows x n, C order): row r counts the values of
 *                                      n successive _randbelow(n) (one resample of n cases), rows
 *                                      in stream order; out is overwritten
 *
 * _randbelow(n) is CPython's: k = n.bit_length(); r = getrandbits(k) until r < n, where
 * getrandbits(k) is the next output shifted right by 32 - k. The twist and the tempering are
 * written as plain loops over the 624 words, which the compiler turns into vector code;
 * the accepted values of a run of words are packed first, then counted, so that neither loop
 * branches on a random bit. tests/test_bootstrap_stream.py checks every function against
 * random.Random and against the numpy path of CPythonRandomStream.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define N 624
#define M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu

/* The twist and the tempering also built for AVX2 where the compiler can pick per machine at load
 * time (x86-64 with GCC or clang): 8 words per instruction instead of SSE2's 4. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

VECTOR_CLONES static void twist(uint32_t *mt)
{
    int k;
    for (k = 0; k < N - M; k++) {
        uint32_t y = (mt[k] & UPPER) | (mt[k + 1] & LOWER);
        mt[k] = mt[k + M] ^ (y >> 1) ^ (-(y & 1u) & MATRIX_A);
    }
    for (; k < N - 1; k++) {
        uint32_t y = (mt[k] & UPPER) | (mt[k + 1] & LOWER);
        mt[k] = mt[k + (M - N)] ^ (y >> 1) ^ (-(y & 1u) & MATRIX_A);
    }
    uint32_t y = (mt[N - 1] & UPPER) | (mt[0] & LOWER);
    mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ (-(y & 1u) & MATRIX_A);
}

/* The outputs of words mt[from:N], tempered, into out[0:N-from]. */
VECTOR_CLONES static void temper(const uint32_t *mt, int from, uint32_t *out)
{
    for (int i = from; i < N; i++) {
        uint32_t y = mt[i];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        out[i - from] = y;
    }
}

/* The stream being read: the state, its position, and the tempered outputs of the words left. */
typedef struct {
    uint32_t *mt;
    int pos;
    uint32_t out[N];
} stream;

/* The outputs not yet consumed (at least one: twists when none is left); returns how many. */
static int ready(stream *s)
{
    if (s->pos >= N) {
        twist(s->mt);
        s->pos = 0;
    }
    temper(s->mt, s->pos, s->out);
    return N - s->pos;
}

/* Up to `need` values of _randbelow(n) from the outputs left, written to `to` (room for N: a rejected
 * word's value may land past the last one kept); consumes the words read (all that are left, or up
 * to the one giving the last value). Returns how many were kept. */
static Py_ssize_t draw(stream *s, uint32_t n, int shift, uint32_t *to, Py_ssize_t need)
{
    int left = ready(s), i = 0;
    Py_ssize_t got = 0;
    if (need >= left) { /* every word read: no early stop in the loop */
        for (; i < left; i++) {
            uint32_t v = s->out[i] >> shift;
            to[got] = v;
            got += v < n;
        }
    } else {
        for (; i < left && got < need; i++) {
            uint32_t v = s->out[i] >> shift;
            to[got] = v;
            got += v < n;
        }
    }
    s->pos += i;
    return got;
}

static int bit_length(uint32_t n)
{
    int k = 0;
    while (n) {
        k++;
        n >>= 1;
    }
    return k;
}

/* Parses (state, pos[, n], out) with the checks every function shares; 0 on success (release both
 * buffers then), -1 with an exception set. */
static int parse(PyObject *args, int with_n, Py_buffer *state, Py_ssize_t *pos, unsigned long long *n, Py_buffer *out,
                 const char *out_format)
{
    PyObject *state_object, *out_object;
    int ok = with_n ? PyArg_ParseTuple(args, "OnKO", &state_object, pos, n, &out_object)
                    : PyArg_ParseTuple(args, "OnO", &state_object, pos, &out_object);
    if (!ok)
        return -1;
    const int flags = PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS;
    if (PyObject_GetBuffer(state_object, state, flags) < 0)
        return -1;
    if (PyObject_GetBuffer(out_object, out, flags) < 0) {
        PyBuffer_Release(state);
        return -1;
    }
    const char *message = NULL;
    if (state->len != N * 4 || state->itemsize != 4 || strcmp(state->format ? state->format : "B", "I") != 0)
        message = "state must be 624 uint32 words";
    else if (*pos < 0 || *pos > N)
        message = "pos must be in [0, 624]";
    else if (with_n && (*n < 1 || *n > 0xffffffffull))
        message = "n must be in [1, 2**32)";
    else if (out->itemsize != 4 || strcmp(out->format ? out->format : "B", out_format) != 0)
        message = out_format[0] == 'f' ? "out must be a float32 buffer" : "out must be a uint32 buffer";
    if (message == NULL)
        return 0;
    PyErr_SetString(PyExc_ValueError, message);
    PyBuffer_Release(state);
    PyBuffer_Release(out);
    return -1;
}

static PyObject *words(PyObject *module, PyObject *args)
{
    Py_buffer state, out;
    Py_ssize_t pos;
    if (parse(args, 0, &state, &pos, NULL, &out, "I") < 0)
        return NULL;
    stream s = {.mt = state.buf, .pos = (int)pos};
    uint32_t *to = out.buf;
    Py_ssize_t size = out.len / 4, done = 0;
    Py_BEGIN_ALLOW_THREADS
    while (done < size) {
        int left = ready(&s);
        int take = size - done < left ? (int)(size - done) : left;
        memcpy(to + done, s.out, (size_t)take * 4);
        s.pos += take;
        done += take;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    return PyLong_FromLong(s.pos);
}

static PyObject *choices(PyObject *module, PyObject *args)
{
    Py_buffer state, out;
    Py_ssize_t pos;
    unsigned long long n;
    if (parse(args, 1, &state, &pos, &n, &out, "I") < 0)
        return NULL;
    stream s = {.mt = state.buf, .pos = (int)pos};
    uint32_t *to = out.buf, values[N];
    Py_ssize_t size = out.len / 4, done = 0;
    int shift = 32 - bit_length((uint32_t)n);
    Py_BEGIN_ALLOW_THREADS
    while (done < size) {
        Py_ssize_t got = draw(&s, (uint32_t)n, shift, values, size - done);
        memcpy(to + done, values, (size_t)got * 4);
        done += got;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    return PyLong_FromLong(s.pos);
}

static PyObject *counts(PyObject *module, PyObject *args)
{
    Py_buffer state, out;
    Py_ssize_t pos;
    unsigned long long n;
    if (parse(args, 1, &state, &pos, &n, &out, "f") < 0)
        return NULL;
    if ((out.len / 4) % (Py_ssize_t)n != 0) {
        PyErr_SetString(PyExc_ValueError, "out must hold whole rows of n counts");
        PyBuffer_Release(&state);
        PyBuffer_Release(&out);
        return NULL;
    }
    stream s = {.mt = state.buf, .pos = (int)pos};
    float *row = out.buf; /* the resample being counted */
    Py_ssize_t size = out.len / 4, done = 0, room = (Py_ssize_t)n; /* draws the row still takes */
    int shift = 32 - bit_length((uint32_t)n);
    uint32_t values[N];
    Py_BEGIN_ALLOW_THREADS
    memset(row, 0, (size_t)size * 4);
    while (done < size) {
        Py_ssize_t got = draw(&s, (uint32_t)n, shift, values, size - done);
        for (Py_ssize_t i = 0; i < got; i++) {
            row[values[i]] += 1.0f;
            if (--room == 0) {
                row += n;
                room = (Py_ssize_t)n;
            }
        }
        done += got;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&state);
    PyBuffer_Release(&out);
    return PyLong_FromLong(s.pos);
}

static PyMethodDef methods[] = {
    {"words", words, METH_VARARGS, "words(state, pos, out) -> pos: the next len(out) 32-bit outputs"},
    {"choices", choices, METH_VARARGS, "choices(state, pos, n, out) -> pos: len(out) values of _randbelow(n)"},
    {"counts", counts, METH_VARARGS, "counts(state, pos, n, out) -> pos: rows of n draws of _randbelow(n), counted"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_mt_draws", "CPython's random.choice stream, compiled.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__mt_draws(void) { return PyModule_Create(&module); }
