package readyq

// CopiesOutside is whether large hand-outs are copied after the unlock:
// false when built with -tags readyq_copyall.
const CopiesOutside = copyOutside
