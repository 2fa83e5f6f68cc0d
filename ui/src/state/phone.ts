// Whether the page is laid out for a phone: a viewport at most 600 CSS px
// wide (styles.css uses the same width). Then one pane shows at a time.
import { useEffect, useState } from 'preact/hooks';

/** The media query of the phone layout. */
export const PHONE_QUERY = '(max-width: 600px)';

/** Whether the phone layout applies, re-rendering when it starts or stops applying. */
export function usePhone(): boolean {
  const [phone, setPhone] = useState(() => matchMedia(PHONE_QUERY).matches);
  useEffect(() => {
    const q = matchMedia(PHONE_QUERY);
    const update = () => setPhone(q.matches);
    update();
    q.addEventListener('change', update);
    return () => q.removeEventListener('change', update);
  }, []);
  return phone;
}
