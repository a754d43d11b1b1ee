/* SPDX-License-Identifier: MIT */
/* A model's token vocabulary for callers that cannot read struct hs_model
 * (include/hardsoft.h: hs_model_vocab_size and the calls after it). */
#include "model/model.h"

int hs_model_vocab_size(const hs_model *m) { return m ? m->nvocab : 0; }

const char *hs_model_vocab_token(const hs_model *m, int k) {
  return m && k >= 0 && k < m->nvocab ? m->vocab_tok[k] : NULL;
}

int hs_model_vocab_byte(const hs_model *m, int k) {
  return m && k >= 0 && k < m->nvocab ? m->vocab_byte[k] : -1;
}
