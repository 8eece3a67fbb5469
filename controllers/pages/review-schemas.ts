// joi schemas of the review rows (issue 26, item 5): the JSON bodies and the screens'
// forms. A comment is free text up to 5,000 characters; a refusal needs one.
import Joi from 'joi';
import { text } from '../../lib/schema-primitives.js';
import { reviewMessages } from '../../models/pages/review-messages.js';
import { scheduleTime } from './revision-schemas.js';

const COMMENT_MAX = 5000;
const revisionNumber = Joi.number().integer().min(1).max(2_147_483_647);
const comment = text().max(COMMENT_MAX).allow('').label('Commentaire').messages({ 'string.max': reviewMessages.commentTooLong });
const requiredComment = text()
  .trim()
  .min(1)
  .max(COMMENT_MAX)
  .required()
  .label('Commentaire')
  .messages({ 'string.max': reviewMessages.commentTooLong, 'string.empty': reviewMessages.commentRequired, 'any.required': reviewMessages.commentRequired });

export interface SubmitBody {
  comment?: string;
  /** When the page should go live once approved. */
  at?: Date;
}

export const submitBody = Joi.object<SubmitBody>({ comment, at: scheduleTime });

export interface ApproveBody {
  revision: number;
  comment?: string;
}

export const approveBody = Joi.object<ApproveBody>({ revision: revisionNumber.required().label('Révision'), comment });

export interface RejectBody {
  comment: string;
  revision?: number;
}

export const rejectBody = Joi.object<RejectBody>({ comment: requiredComment, revision: revisionNumber.label('Révision') });

/** The screen's submission form: a comment and, optionally, the wished publication time (the site's wall clock). */
export const submitForm = Joi.object<{ comment?: string; review_at?: string }>({ comment, review_at: text().max(40).allow('') });
