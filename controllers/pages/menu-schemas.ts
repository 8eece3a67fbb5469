// joi of the menus (the edge, for the API and the menu screen's form alike): items
// `{label, page_id | url, children}`, one level of sub-links, addresses only https:,
// http:, mailto: or a path of the site. A refusal names the item's field as
// `items[2].url`, `items[0].children[1].label`.
import Joi from 'joi';
import { id, text } from '../../lib/schema-primitives.js';
import { singleLine } from '../../lib/validation.js';
import { MENU_LIMITS, type MenuLink } from '../../models/pages/menus.js';
import { menuMessages } from '../../models/pages/messages.js';

const MAILTO = /^mailto:[^\s/?#][^\s]*$/i;
const SITE_PATH = /^\/(?![/\\])[^\s\\]*$/;

/** https:, http: (with a host), mailto: or a path of the site (never `//host`): what a menu may link to. */
function isMenuUrl(value: string): boolean {
  if (SITE_PATH.test(value) || MAILTO.test(value)) return true;
  if (!/^https?:\/\//i.test(value) || /\s/.test(value)) return false;
  return URL.canParse(value) && new URL(value).hostname.length > 0;
}

const url = text()
  .trim()
  .max(MENU_LIMITS.url)
  .custom((value: string, helpers) => (isMenuUrl(value) ? value : helpers.error('menu.url')))
  .label('Adresse')
  .messages({ 'menu.url': menuMessages.urlInvalid });

const hasPage = Joi.number().required();

function linkSchema(children: Joi.Schema): Joi.ObjectSchema<MenuLink> {
  return Joi.object<MenuLink>({
    page_id: id.allow(null).label('Page'),
    label: Joi.when('page_id', {
      is: hasPage,
      then: singleLine(text().trim().max(MENU_LIMITS.label)).allow(null, ''),
      otherwise: singleLine(text().trim().max(MENU_LIMITS.label))
        .required()
        .messages({ 'any.required': menuMessages.labelRequired, 'string.empty': menuMessages.labelRequired }),
    }).label('Libellé'),
    url: Joi.when('page_id', {
      is: hasPage,
      then: Joi.valid(null, '').messages({ 'any.only': menuMessages.targetBoth }),
      otherwise: url.required().messages({ 'any.required': menuMessages.targetMissing, 'string.empty': menuMessages.targetMissing }),
    }),
    children,
  });
}

const child = linkSchema(Joi.array().max(0).default([]).messages({ 'array.max': menuMessages.tooDeep }));
const item = linkSchema(Joi.array().items(child).max(MENU_LIMITS.children).default([]).label('Sous-liens'));

/** joi's path `['items', 2, 'url']` as `items[2].url`. */
function bracketed(path: Array<string | number>): string {
  return path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

export const menuBody = Joi.object<{ items: MenuLink[] }>({
  items: Joi.array()
    .items(item)
    .max(MENU_LIMITS.items)
    .required()
    .label('Liens')
    .custom((items: MenuLink[], helpers) =>
      items.reduce((count, link) => count + 1 + (link.children?.length ?? 0), 0) > MENU_LIMITS.total ? helpers.error('menu.total') : items,
    )
    .messages({ 'menu.total': menuMessages.tooMany(MENU_LIMITS.total) }),
}).error((errors) => {
  for (const error of errors) error.path = [bracketed(error.path)];
  return errors;
});

export const menuParams = Joi.object<{ name: string }>({ name: text().max(64).required() });
