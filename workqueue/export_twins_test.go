package workqueue

// CopiesOutside is whether large hand-outs are copied after the unlock:
// false when built with -tags workqueue_copyall.
const CopiesOutside = copyOutside
